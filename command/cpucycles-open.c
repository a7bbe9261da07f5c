/* cpucycles-open [--dry-run]: as root, opens the Linux knobs that keep the
   best cycle counters from user programs, until reboot, and prints each
   change as PATH OLD -> NEW (cpucycles-open(1) shows how to put the old
   values back by hand).  doc/security.md says what it opens.

   It runs as root, often through sudo, so it trusts nothing it did not
   write: no option names a file; knobs are opened without following a
   symlink and must be regular files of one name holding a value in
   their range, and the file written is the file read.

   The test binary (-DCPUCYCLES_OPEN_TEST, tests/integration/open.sh,
   never installed) also takes --root=DIR (act on DIR/proc and DIR/sys)
   and --pretend-uid=N.  Of the library it uses cpucycles_version() alone,
   for --version: nothing here runs the counter selection. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cpucycles.h>

/* What each knob should become, when it needs changing, and the values
   the kernel gives a meaning to: a knob holding another is left alone. */
enum rule { AT_MOST, EXACTLY, AT_LEAST };
static const struct knob {
  const char *path;
  long want;
  enum rule rule;
  int optional; /* absent is normal */
  long low, high;
} knobs[] = {
  /* 3 and 4 (Debian's patch) refuse perf to users altogether */
  { "/proc/sys/kernel/perf_event_paranoid", 2, AT_MOST, 0, -1, 4 },
  /* 2: RDPMC in user code without mapping an event first */
  { "/sys/devices/cpu/rdpmc", 2, EXACTLY, 1, 0, 2 },
  { "/sys/devices/cpu_core/rdpmc", 2, EXACTLY, 1, 0, 2 },
  { "/sys/devices/cpu_atom/rdpmc", 2, EXACTLY, 1, 0, 2 },
  /* arm64 and RISC-V; RISC-V's 2 (rdcycle for all) is more open than 1 */
  { "/proc/sys/kernel/perf_user_access", 1, AT_LEAST, 1, 0, 2 },
  /* the NMI watchdog takes a fixed counter and wraps RDPMC counts */
  { "/proc/sys/kernel/nmi_watchdog", 0, EXACTLY, 1, 0, 1 },
};
#define KNOBS (sizeof knobs / sizeof knobs[0])

static int dry_run;

/* set only by the test binary's --root and --pretend-uid */
static const char *root = "";
static long pretend_uid = -1;

static const char *at(const char *path)
{
  static char name[4096];
  snprintf(name, sizeof name, "%s%s", root, path);
  return name;
}

static int needs_change(const struct knob *k, long v)
{
  return k->rule == AT_MOST ? v > k->want : k->rule == AT_LEAST ? v < k->want : v != k->want;
}

static int in_range(const struct knob *k, long v) { return v >= k->low && v <= k->high; }

/* A whole number, perhaps ended by a newline: 1 and *value, or 0. */
static int number(const char *text, long *value)
{
  char *end;
  errno = 0;
  *value = strtol(text, &end, 10);
  return end != text && !errno && (!*end || !strcmp(end, "\n"));
}

/* The knob read (its file, for the write to check) */
static struct stat read_st;

/* Reads a regular file of one name, not through a symlink and without
   blocking (a FIFO planted there is refused), into text, ended by a
   zero: its length, or -1 and *why.  A file that does not fit is refused:
   its start alone could pass for a value. */
static ssize_t read_file(const char *path, char *text, size_t size, const char **why)
{
  ssize_t n = -1;
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0)
    *why = errno == ELOOP ? "is a symlink" : errno == ENOENT ? "not present" : strerror(errno);
  else if (fstat(fd, &read_st) != 0 || !S_ISREG(read_st.st_mode) || read_st.st_nlink != 1)
    *why = "is not a regular file of one name";
  else if ((n = read(fd, text, size)) < 0) *why = strerror(errno);
  else if ((size_t) n == size || memchr(text, 0, (size_t) n)) {
    *why = "does not hold a number";
    n = -1;
  } else {
    text[n] = 0;
  }
  if (fd >= 0) close(fd);
  return n;
}

static int read_knob(const struct knob *k, long *value, const char **why)
{
  char text[32];
  if (read_file(at(k->path), text, sizeof text, why) < 0) return 0;
  if (number(text, value)) return 1;
  *why = "does not hold a number";
  return 0;
}

/* Only after read_knob() found a regular file there, and only to that
   file: one put in its place meanwhile is refused before anything is
   written.  Truncating is what a shell's "echo 2 > KNOB" does; kernel
   knobs ignore it, and refuse a value in write(). */
static int write_knob(const struct knob *k, long value, const char **why)
{
  char text[32];
  struct stat st;
  int n = snprintf(text, sizeof text, "%ld\n", value), ok = 0;
  int fd = open(at(k->path), O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) *why = errno == ELOOP ? "is a symlink" : strerror(errno);
  else if (fstat(fd, &st) != 0 || st.st_dev != read_st.st_dev || st.st_ino != read_st.st_ino)
    *why = "was replaced after it was read";
  else {
    if (ftruncate(fd, 0) != 0) errno = 0; /* a kernel knob may refuse it: the write decides */
    if (!(ok = write(fd, text, (size_t) n) == n)) *why = strerror(errno);
  }
  if (fd >= 0) close(fd);
  return ok;
}

/* Sets knob i from V to TO, or says it would: 1, or 0 after saying why not. */
static int change(unsigned int i, long v, long to)
{
  const char *why;
  if (!dry_run && !write_knob(&knobs[i], to, &why)) {
    printf("%s could not change %ld -> %ld: %s\n", knobs[i].path, v, to, why);
    return 0;
  }
  printf("%s %s%ld -> %ld\n", knobs[i].path, dry_run ? "would change " : "", v, to);
  return 1;
}

static int open_up(void)
{
  int failed = 0;
  const char *why;
  unsigned int i;
  long v;
  for (i = 0; i < KNOBS; ++i) {
    const struct knob *k = &knobs[i];
    int readable = read_knob(k, &v, &why);
    if (!readable && k->optional && !strcmp(why, "not present")) {
      printf("%s not present; nothing to do\n", k->path);
    } else if (!readable) {
      printf("%s cannot be read: %s\n", k->path, why);
      ++failed;
    } else if (!in_range(k, v)) {
      printf("%s holds %ld, outside %ld..%ld; left alone\n", k->path, v, k->low, k->high);
      ++failed;
    } else if (!needs_change(k, v)) {
      printf("%s already %ld\n", k->path, v);
    } else {
      failed += !change(i, v, k->want);
    }
  }
  return failed != 0;
}

static void usage(FILE *f)
{
  fprintf(f, "usage: cpucycles-open [--dry-run | --version]\n"
             "  Run as root: lets user programs use the best cycle counters until reboot\n"
             "  (perf_event_paranoid at most 2, rdpmc 2, perf_user_access 1, nmi_watchdog 0).\n"
             "  --dry-run     say what would change, change nothing (needs no root)\n"
             "  --version     print the version of libcpucycles it belongs to\n"
#ifdef CPUCYCLES_OPEN_TEST
             "  test binary only: --root=DIR (act on DIR/proc, DIR/sys), --pretend-uid=N\n"
#endif
             "  See cpucycles-open(1): this opens performance counters to every program.\n");
}

/* 0, or 1 with a message when stdout could not take everything */
static int output_lost(void)
{
  int lost = fflush(stdout) != 0 || ferror(stdout);
  if (fclose(stdout) == 0 && !lost) return 0;
  fprintf(stderr,
          "cpucycles-open: cannot write its output; see the knobs themselves for what changed\n");
  return 1;
}

int main(int argc, char **argv)
{
  int i, status;
  if (argc == 2 && !strcmp(argv[1], "--version")) {
    printf("cpucycles-open %s\n", cpucycles_version());
    return output_lost();
  }
  for (i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--dry-run")) dry_run = 1;
#ifdef CPUCYCLES_OPEN_TEST
    else if (!strncmp(argv[i], "--root=", 7)) root = argv[i] + 7;
    else if (!strncmp(argv[i], "--pretend-uid=", 14)) pretend_uid = atol(argv[i] + 14);
#endif
    else {
      int help = !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h");
      if (!help) fprintf(stderr, "cpucycles-open: unknown argument '%s'\n", argv[i]);
      usage(help ? stdout : stderr);
      return help ? output_lost() : 2;
    }
  }
  /* A closed descriptor 0, 1 or 2 would be handed to a knob by open(),
     and our printing would land there: fill each with /dev/null, and with
     no stdout to report to, change nothing. */
  for (i = 0; i <= 2; ++i) {
    if (fcntl(i, F_GETFD) != -1) continue;
    if (open("/dev/null", i ? O_WRONLY : O_RDONLY) != i) return 1;
    if (i == 1) {
      fprintf(stderr, "cpucycles-open: standard output is closed; nothing was changed\n");
      return 1;
    }
  }
  signal(SIGPIPE, SIG_IGN); /* a reader that goes away must not stop us between two knobs */
  if (!dry_run && (pretend_uid >= 0 ? pretend_uid : (long) geteuid()) != 0) {
    fprintf(stderr,
            "cpucycles-open: must be run as root: it changes kernel settings for every user; "
            "nothing was changed (try --dry-run to see what it would do)\n");
    return 1;
  }
  status = open_up();
  return output_lost() ? 1 : status;
}
