/* PID 1 of make test-system's guest (scripts/system-test, doc/system.md):
   a Debian arm64 kernel under qemu-system-aarch64 with an initramfs of
   our arm64 binaries.  It mounts /proc, /sys, /dev, /run and /tmp, runs
   the steps below as root and as an unprivileged uid, and powers off.
   It asserts nothing itself: it prints, and the host reads the console.

   Console protocol (one line each, whatever else the kernel prints):
     @@ guest RELEASE cpus N
     @@ begin STEP uid U          then the step's own output
     @@ end STEP status S ms T    (S: exit status, or "signal N"; T: wall ms)
     @@ knobs LABEL paranoid=P user_access=A nmi_watchdog=W
     @@ done

   Linked statically: it runs before anything else is there. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NOBODY 65534
static int no_proc; /* the next step runs without /proc */
/* where a step runs: the unit tests read source files (cpucycles/options,
   doc/counters.md) from /src, a copy of those parts of the tree */
static const char *workdir = "/tmp";
#define MAXARGS 8
/* the knobs at boot, which cpucycles-open's OLD values put back by hand */
static char boot_paranoid[32], boot_access[32], boot_watchdog[32];

static void say(const char *format, ...)
{
  va_list ap;
  va_start(ap, format);
  vprintf(format, ap);
  va_end(ap);
  fflush(stdout);
}

static void knob(const char *label, const char *path, char *out, size_t size)
{
  int fd = open(path, O_RDONLY);
  ssize_t n = fd < 0 ? -1 : read(fd, out, size - 1);
  if (fd >= 0) close(fd);
  if (n <= 0) { snprintf(out, size, "absent"); return; }
  out[n] = 0;
  out[strcspn(out, "\n")] = 0;
  (void) label;
}

static void knobs(const char *label)
{
  char p[32], a[32], w[32];
  knob(label, "/proc/sys/kernel/perf_event_paranoid", p, sizeof p);
  knob(label, "/proc/sys/kernel/perf_user_access", a, sizeof a);
  knob(label, "/proc/sys/kernel/nmi_watchdog", w, sizeof w);
  say("@@ knobs %s paranoid=%s user_access=%s nmi_watchdog=%s\n", label, p, a, w);
}

/* Starts argv as uid (0: root) with the one extra environment setting
   extra (or none), and what the unit tests read: the loops cut as under
   qemu-user, and 20 racing processes instead of 200 (each a whole
   selection, a quarter second here).  Returns the child's pid. */
static pid_t start(uid_t uid, const char *extra, char *const *argv)
{
  char *env[5];
  int e = 0;
  pid_t pid;
  env[e++] = "PATH=/bin";
  env[e++] = "CPUCYCLES_TEST_EMULATED=1";
  env[e++] = "CPUCYCLES_TEST_CHILDREN=20";
  if (extra) env[e++] = (char *) extra;
  env[e] = 0;
  fflush(stdout);
  pid = fork();
  if (pid != 0) return pid;
  if (uid != 0) {
    if (setgroups(0, 0) != 0 || setgid(uid) != 0 || setuid(uid) != 0 || getuid() != uid || geteuid() != uid) {
      say("init: cannot become uid %u: %s\n", (unsigned) uid, strerror(errno));
      _exit(125);
    }
  }
  if (no_proc) {
    /* a process that sees no /proc: the library cannot read the knobs */
    if (unshare(CLONE_NEWNS) != 0 || mount(0, "/", 0, MS_REC | MS_PRIVATE, 0) != 0 || umount2("/proc", MNT_DETACH) != 0) {
      say("init: cannot hide /proc: %s\n", strerror(errno));
      _exit(125);
    }
  }
  if (chdir(workdir) != 0) _exit(125);
  execve(argv[0], argv, env);
  say("init: cannot run %s: %s\n", argv[0], strerror(errno));
  _exit(126);
}

static long long milliseconds(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000LL + t.tv_nsec / 1000000;
}

static long long began;

/* Says a step begins, unless the kernel command line's only=A,B,...
   (in init's environment) leaves it out: then returns 0. */
static int begin(const char *step, uid_t uid)
{
  const char *only = getenv("only");
  if (only && *only) {
    /* only=A,B: steps whose names hold A or B */
    char list[256], *word, *rest;
    int wanted = 0;
    snprintf(list, sizeof list, "%s", only);
    for (word = strtok_r(list, ",", &rest); word; word = strtok_r(0, ",", &rest))
      if (strstr(step, word)) wanted = 1;
    if (!wanted) return 0;
  }
  say("@@ begin %s uid %u\n", step, (unsigned) uid);
  began = milliseconds();
  return 1;
}

static void ended(const char *step, int status)
{
  long long ms = milliseconds() - began;
  if (WIFEXITED(status))
    say("@@ end %s status %d ms %lld\n", step, WEXITSTATUS(status), ms);
  else
    say("@@ end %s status signal %d ms %lld\n", step, WIFSIGNALED(status) ? WTERMSIG(status) : -1, ms);
}

/* run(STEP, UID, EXTRA_ENV, PROGRAM, ARGS..., 0) */
static void run(const char *step, uid_t uid, const char *extra, ...)
{
  char *argv[MAXARGS + 1];
  int n = 0, status = 0;
  va_list ap;
  va_start(ap, extra);
  while (n < MAXARGS && (argv[n] = va_arg(ap, char *))) ++n;
  va_end(ap);
  argv[n] = 0;
  if (!begin(step, uid)) return;
  if (waitpid(start(uid, extra, argv), &status, 0) < 0) status = 127 << 8;
  ended(step, status);
}

/* The same program once per CPU, all at once: argument "I/N" says which. */
static void run_each_cpu(const char *step, uid_t uid, const char *extra, char *program, int cpus)
{
  char which[64][16], *argv[3];
  pid_t pid[64];
  int i, status, worst = 0;
  if (cpus > 64) cpus = 64;
  if (!begin(step, uid)) return;
  for (i = 0; i < cpus; ++i) {
    snprintf(which[i], sizeof which[i], "%d/%d", i, cpus);
    argv[0] = program;
    argv[1] = which[i];
    argv[2] = 0;
    pid[i] = start(uid, extra, argv);
  }
  for (i = 0; i < cpus; ++i) {
    if (waitpid(pid[i], &status, 0) < 0) status = 127 << 8;
    if (status != 0 && worst == 0) worst = status;
  }
  ended(step, worst);
}

/* Every unit test in /tests (linked statically, as under qemu-user), as
   uid, in name order. */
static int by_name(const struct dirent **a, const struct dirent **b) { return strcmp((*a)->d_name, (*b)->d_name); }

static void unit_tests(uid_t uid)
{
  struct dirent **names;
  char path[300], step[300];
  int i, n = scandir("/tests", &names, 0, by_name);
  workdir = "/src";
  for (i = 0; i < n; ++i) {
    if (names[i]->d_name[0] != '.') {
      snprintf(path, sizeof path, "/tests/%s", names[i]->d_name);
      snprintf(step, sizeof step, "unit-%s-%s", names[i]->d_name, uid ? "nobody" : "root");
      run(step, uid, 0, path, (char *) 0);
    }
    free(names[i]);
  }
  if (n >= 0) free(names);
  workdir = "/tmp";
}

static void mounts(void)
{
  mkdir("/proc", 0555);
  mkdir("/sys", 0555);
  mkdir("/dev", 0755);
  mkdir("/run", 0755);
  mkdir("/tmp", 01777);
  if (mount("proc", "/proc", "proc", 0, 0) != 0) say("init: mount /proc: %s\n", strerror(errno));
  if (mount("sysfs", "/sys", "sysfs", 0, 0) != 0) say("init: mount /sys: %s\n", strerror(errno));
  if (mount("devtmpfs", "/dev", "devtmpfs", 0, 0) != 0) say("init: mount /dev: %s\n", strerror(errno));
  if (mount("tmpfs", "/run", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") != 0)
    say("init: mount /run: %s\n", strerror(errno));
  if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") != 0)
    say("init: mount /tmp: %s\n", strerror(errno));
}

static void set_knob(const char *path, const char *value)
{
  int fd = open(path, O_WRONLY);
  if (fd < 0 || write(fd, value, strlen(value)) != (ssize_t) strlen(value)) say("init: cannot write %s\n", path);
  if (fd >= 0) close(fd);
}

/* back by hand, as cpucycles-open(1) shows: "echo OLD > PATH" */
static void put_back(const char *path, const char *old)
{
  char line[40];
  if (!strcmp(old, "absent")) return;
  snprintf(line, sizeof line, "%s\n", old);
  set_knob(path, line);
}

#define INFO "/bin/cpucycles-info"
#define OPEN "/bin/cpucycles-open"
/* the guest's fast core counter and an off-core clock to compare with
   (scripts/system-test gives them per ISA) */
#ifndef PMC
#define PMC "arm64-perfpmc"
#endif
#ifndef CLOCK
#define CLOCK "arm64-vct"
#endif
#define FORCE_PMC "CPUCYCLES_IMPLEMENTATION=" PMC
#define FORCE_CLOCK "CPUCYCLES_IMPLEMENTATION=" CLOCK
#define FORCE_PERF "CPUCYCLES_IMPLEMENTATION=default-perfevent"
/* QEMU's TCG PMU counts 10^9 cycles a second of virtual time, and the
   guest states no CPU rate: /bin/loop says it (cpucyclespersecond), so
   the scaled arm64-vct counts the same cycles (doc/system.md) */
#define RATE "1000000000"
/* /bin/handlers: the timer's interval in microseconds (100 Hz, 200 us)
   and the thread lifetimes.  /bin/recycle: the thread lifetimes, all on
   one CPU (a call across vCPUs costs milliseconds under TCG): on riscv64
   past the 65,510 after which the map count used to stop pthread_create
   (issue 32, row 4; some 2.3 ms a lifetime here), on arm64, where no
   page was kept, fewer */
#define HZ100 "10000"
#define US200 "200"
#define LIFETIMES "300"
#define RECYCLED "70000"
#define RECYCLED_ARM64 "3000"

int main(void)
{
  struct utsname u;
  int cpus, round;

  mounts();
  cpus = (int) sysconf(_SC_NPROCESSORS_ONLN);
  say("@@ guest %s cpus %d\n", uname(&u) == 0 ? u.release : "unknown", cpus);
  knobs("boot");
  knob("boot", "/proc/sys/kernel/perf_event_paranoid", boot_paranoid, sizeof boot_paranoid);
  knob("boot", "/proc/sys/kernel/perf_user_access", boot_access, sizeof boot_access);
  knob("boot", "/proc/sys/kernel/nmi_watchdog", boot_watchdog, sizeof boot_watchdog);

  /* before cpucycles-open: Debian's paranoid 3, perf_user_access 0 */
  run("info-root-before", 0, 0, INFO, (char *) 0);
  run("info-nobody-before", NOBODY, 0, INFO, (char *) 0);
  run("perfevent-root-before", 0, FORCE_PERF, INFO, (char *) 0);
  run("perfevent-nobody-before", NOBODY, FORCE_PERF, INFO, (char *) 0);
  /* threads start and end while a timer's handler calls cpucycles()
     (issue 32, row 1): default-perfevent, as root (EACCES for the uid) */
  run("handlers-100hz-perfevent-root-before", 0, FORCE_PERF, "/bin/handlers", HZ100, LIFETIMES, (char *) 0);
  run("handlers-200us-perfevent-root-before", 0, FORCE_PERF, "/bin/handlers", US200, LIFETIMES, (char *) 0);
  no_proc = 1;
  run("info-root-no-proc", 0, 0, INFO, (char *) 0);
  no_proc = 0;
  unit_tests(0);
  unit_tests(NOBODY);

  /* cpucycles-open for real */
  run("open-dry-run", 0, 0, OPEN, "--dry-run", (char *) 0);
  knobs("after-dry-run");
  run("open-nobody", NOBODY, 0, OPEN, (char *) 0);
  knobs("after-open-nobody");
  run("open-restore", 0, 0, OPEN, "--restore", (char *) 0); /* gone: an unknown argument */
  knobs("after-open-restore");
  run("open", 0, 0, OPEN, (char *) 0);
  knobs("after-open");
  run("open-again", 0, 0, OPEN, (char *) 0);
  knobs("after-open-again");

  /* after it */
  run("info-root-after", 0, 0, INFO, (char *) 0);
  run("info-nobody-after", NOBODY, 0, INFO, (char *) 0);
  /* issue 30: the first call, with the core counter now chosen, installs
     no signal handler (before it, the unit tests ran the same program) */
  run("nohandler-nobody-after", NOBODY, 0, "/tests/firstcall-nohandler", (char *) 0);
  run("nohandler-root-after", 0, 0, "/tests/firstcall-nohandler", (char *) 0);
  run_each_cpu("moves-perfpmc-nobody", NOBODY, FORCE_PMC, "/bin/moves", cpus);
  run_each_cpu("moves-perfpmc-root", 0, FORCE_PMC, "/bin/moves", cpus);
  run_each_cpu("moves-perfevent-nobody", NOBODY, FORCE_PERF, "/bin/moves", cpus);
  run_each_cpu("moves-perfevent-root", 0, FORCE_PERF, "/bin/moves", cpus);
  run("otherthread-perfpmc-nobody", NOBODY, FORCE_PMC, "/bin/otherthread", (char *) 0);
  run("otherthread-perfevent-nobody", NOBODY, FORCE_PERF, "/bin/otherthread", (char *) 0);
  run("otherthread-clock-nobody", NOBODY, FORCE_CLOCK, "/bin/otherthread", (char *) 0);
  run("fds-perfpmc-nobody", NOBODY, FORCE_PMC, "/bin/fds", (char *) 0);
  run("fds-perfevent-nobody", NOBODY, FORCE_PERF, "/bin/fds", (char *) 0);
  /* issue 32, row 1 for the page reader and, now open to the uid,
     default-perfevent; row 4: a pool that recycles threads */
  run("handlers-100hz-perfpmc-nobody", NOBODY, FORCE_PMC, "/bin/handlers", HZ100, LIFETIMES, (char *) 0);
  run("handlers-200us-perfpmc-nobody", NOBODY, FORCE_PMC, "/bin/handlers", US200, LIFETIMES, (char *) 0);
  run("handlers-200us-perfpmc-root", 0, FORCE_PMC, "/bin/handlers", US200, LIFETIMES, (char *) 0);
  run("handlers-200us-perfevent-nobody", NOBODY, FORCE_PERF, "/bin/handlers", US200, LIFETIMES, (char *) 0);
  run("recycle-perfpmc-nobody", NOBODY, FORCE_PMC, "/bin/recycle", strstr(PMC, "riscv") ? RECYCLED : RECYCLED_ARM64,
      "1", (char *) 0);
  /* issue 37: a handler's siglongjmp out of a first read (row 1), a child
     made without fork()'s handlers (row 2), threads killed in their first
     read (row 3), for the page reader and default-perfevent; on arm64, a
     reader that reopens while another process holds the cycle counter
     (row 9, as root: CPU-wide events) */
  run("wedge-longjmp-perfpmc-nobody", NOBODY, FORCE_PMC, "/bin/wedge", "longjmp", "300", (char *) 0);
  run("wedge-longjmp-perfevent-nobody", NOBODY, FORCE_PERF, "/bin/wedge", "longjmp", "300", (char *) 0);
  run("wedge-fork-perfpmc-nobody", NOBODY, FORCE_PMC, "/bin/wedge", "fork", (char *) 0);
  run("wedge-fork-perfevent-nobody", NOBODY, FORCE_PERF, "/bin/wedge", "fork", (char *) 0);
  run("wedge-killed-perfpmc-nobody", NOBODY, FORCE_PMC, "/bin/wedge", "killed", "300", (char *) 0);
  run("wedge-killed-perfevent-nobody", NOBODY, FORCE_PERF, "/bin/wedge", "killed", "300", (char *) 0);
  if (!strstr(PMC, "riscv")) run("wedge-parked-perfpmc-root", 0, FORCE_PMC, "/bin/wedge", "parked", "800", (char *) 0);
  for (round = 0; round < 5; ++round) {
    run("loop-perfpmc", NOBODY, FORCE_PMC, "/bin/loop", RATE, (char *) 0);
    run("loop-perfevent", NOBODY, FORCE_PERF, "/bin/loop", RATE, (char *) 0);
    run("loop-clock", NOBODY, FORCE_CLOCK, "/bin/loop", RATE, (char *) 0);
  }

  /* RISC-V's perf_user_access 2: the cycle CSR readable by all, yet it
     may run only while some perf cycles event holds it; whatever the
     rule picks must count, in every thread */
  if (access("/proc/sys/kernel/perf_user_access", F_OK) == 0 && strstr(PMC, "riscv")) {
    set_knob("/proc/sys/kernel/perf_user_access", "2\n");
    knobs("access-2");
    run("info-root-access2", 0, 0, INFO, (char *) 0);
    run("info-nobody-access2", NOBODY, 0, INFO, (char *) 0);
    run("otherthread-access2-nobody", NOBODY, 0, "/bin/otherthread", (char *) 0);
    set_knob("/proc/sys/kernel/perf_user_access", "1\n");
  }

  /* and back */
  put_back("/proc/sys/kernel/perf_event_paranoid", boot_paranoid);
  put_back("/proc/sys/kernel/perf_user_access", boot_access);
  put_back("/proc/sys/kernel/nmi_watchdog", boot_watchdog);
  knobs("after-restore");
  run("info-root-restored", 0, 0, INFO, (char *) 0);
  run("info-nobody-restored", NOBODY, 0, INFO, (char *) 0);

  say("@@ done\n");
  sync();
  reboot(RB_POWER_OFF);
  return 0;
}
