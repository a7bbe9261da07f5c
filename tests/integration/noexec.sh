# The library runs no other program: no object in libcpucycles.a calls
# fork, exec*, popen, system or posix_spawn.
. tests/lib.sh
NM=nm
command -v "${AR%ar}nm" > /dev/null 2>&1 && NM=${AR%ar}nm
calls=$($NM -u "$PACKAGE/lib/libcpucycles.a" 2>/dev/null | awk '{print $NF}' |
  grep -E '^(fork|vfork|execl|execle|execlp|execv|execve|execvp|execvpe|popen|system|posix_spawnp?)(@.*)?$' | sort -u | tr '\n' ' ')
undefined=$($NM -u "$PACKAGE/lib/libcpucycles.a" 2>/dev/null | grep -c .)
if [ "$undefined" -gt 0 ] && [ -z "$calls" ]; then
  pass noexec_library_runs_no_program
else
  fail noexec_library_runs_no_program "calls: ${calls:-none}; $undefined undefined symbols seen"
fi
