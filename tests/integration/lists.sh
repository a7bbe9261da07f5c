# The counter files (cpucycles/ARCH-NAME.c; support code has no dash in
# its name), the ordered list cpucycles/options and the table in
# doc/counters.md name the same counters, in the same order; the table of
# threads and fork covers every counter too.
. tests/lib.sh
files=$(ls cpucycles/*-*.c | sed 's,cpucycles/,,; s,\.c$,,' | sort | tr '\n' ' ')
listed=$(grep -v '^#' cpucycles/options | sort | tr '\n' ' ')
[ "$files" = "$listed" ] && pass lists_files_match_options || fail lists_files_match_options "files: $files; options: $listed"
order=$(grep -v '^#' cpucycles/options | tr '\n' ' ')
table=$(sed -n '/^| counter | ISA /,/^$/p' doc/counters.md | sed -n 's/^| \([a-z0-9]*-[a-z0-9]*\) |.*/\1/p' | tr '\n' ' ')
[ "$order" = "$table" ] && pass lists_counters_md_matches_options || fail lists_counters_md_matches_options "doc: $table; options: $order"
threads=$(sed -n '/^## Threads and fork/,/^`cpucycles-info`/p' doc/counters.md)
ok=1
for name in $order; do
  echo "$threads" | grep -q "[| ,]$name[,| ]" || { ok=0; echo "no threads row for $name"; }
done
[ $ok = 1 ] && pass lists_threads_table_covers_every_counter || fail lists_threads_table_covers_every_counter "see above"
[ "$(grep -v '^#' cpucycles/options | tail -n 1)" = default-zero ] && pass lists_default_zero_last ||
  fail lists_default_zero_last "default-zero must be last"
