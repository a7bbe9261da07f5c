/* Linked into a test build of the shared library together with
   tests/fakeos.c (in place of the library's os.o): when the library is
   loaded, this constructor swaps every perf cycles event the library asks
   for with the software task-clock event, which the kernel has even
   without a PMU.  Everything else (the library's flags, such as
   close-on-exec, and the exclude bits) is left as the library set it, so
   a perf counter really opens, reads and must close fds
   (tests/integration/unload.sh; tests/clients/perffds.c does the same in
   a static program). */
#include "fakeos.h"

__attribute__((constructor)) static void softperf(void)
{
  fake_os.perf_event_open = fake_software_cycles;
}
