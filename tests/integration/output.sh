# cpucycles-info fails when its output cannot be written: to a full disk
# (/dev/full) or a closed stdout.  (cpucycles-open's cases are in open.sh.)
. tests/lib.sh
info=$PACKAGE/bin/cpucycles-info
if [ -w /dev/full ]; then
  $RUN "$info" > /dev/full 2> /dev/null
  status=$?
  [ $status != 0 ] && pass info_full_output_fails || fail info_full_output_fails "exit status $status"
else
  skip info_full_output_fails "no writable /dev/full"
fi
$RUN "$info" >&- 2> /dev/null
status=$?
[ $status != 0 ] && pass info_closed_stdout_fails || fail info_closed_stdout_fails "exit status $status"
$RUN "$info" > /dev/null
status=$?
[ $status = 0 ] && pass info_writable_output_succeeds || fail info_writable_output_succeeds "exit status $status"
