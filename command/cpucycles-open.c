/* cpucycles-open [--dry-run] [--restore]: as root, opens the Linux knobs
   that keep the best cycle counters from user programs, until reboot, and
   puts them back.  cpucycles-open(1) says what it prints and its exit
   statuses; doc/security.md says what it opens.

   It runs as root, often through sudo, so it trusts nothing it did not
   write: no option names a file; knobs and the record are opened without
   following a symlink and must be regular files; the record is written
   before any knob changes, created exclusively in a directory only root
   may write; --restore uses only a record that root alone may write, and
   writes back only values inside each knob's range.

   The test binary (-DCPUCYCLES_OPEN_TEST, tests/integration/open.sh,
   never installed) also takes --root=DIR (act on DIR/proc, DIR/sys and
   DIR/run) and --pretend-uid=N. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The record is emptied at boot, like the changes (FHS: /run), so it
   needs no boot id; a stale one could only close counters, as every old
   value it may hold is more closed than what cpucycles-open sets. */
#define RUN "/run"
#define RECORD "cpucycles-open.saved"
#define RECORD_PATH RUN "/" RECORD
#define HEAD "cpucycles-open record\n" /* then a line "PATH OLD NEW" a knob */
#define MAXRECORD 1024 /* bytes: a full record is under 300 */

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

/* the record: knob i held old[i] before cpucycles-open set it */
static int recorded[KNOBS];
static long old[KNOBS];
static int dry_run, run = -1; /* run: the record's directory */

/* set only by the test binary's --root and --pretend-uid */
static const char *root = "";
static long pretend_uid = -1;

static const char *at(const char *path)
{
  static char name[4096];
  snprintf(name, sizeof name, "%s%s", root, path);
  return name;
}

/* owned by root (in the tests' tree, by whoever runs them), and writable
   by nobody else */
static int root_alone(const struct stat *st)
{
  return (st->st_uid == 0 || (*root && st->st_uid == geteuid())) && !(st->st_mode & (S_IWGRP | S_IWOTH));
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

/* Reads a regular file, not through a symlink and without blocking (a
   FIFO planted there is refused), into text, ended by a zero: its length,
   or -1 and *why. */
static ssize_t read_file(int dir, const char *path, char *text, size_t size, struct stat *st, const char **why)
{
  ssize_t n = -1;
  int fd = openat(dir, path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) *why = errno == ELOOP ? "is a symlink" : errno == ENOENT ? "not present" : strerror(errno);
  else if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) *why = "is not a regular file";
  else if ((n = read(fd, text, size - 1)) < 0) *why = strerror(errno);
  else text[n] = 0;
  if (fd >= 0) close(fd);
  return n;
}

static int read_knob(const struct knob *k, long *value, const char **why)
{
  char text[32];
  struct stat st;
  if (read_file(AT_FDCWD, at(k->path), text, sizeof text, &st, why) < 0) return 0;
  if (number(text, value)) return 1;
  *why = "does not hold a number";
  return 0;
}

/* Only after read_knob() found a regular file there.  O_TRUNC is what a
   shell's "echo 2 > KNOB" does; kernel knobs ignore it, and refuse a
   value in write(). */
static int write_knob(const struct knob *k, long value, const char **why)
{
  char text[32];
  int n = snprintf(text, sizeof text, "%ld\n", value), ok = 0;
  int fd = open(at(k->path), O_WRONLY | O_TRUNC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) *why = errno == ELOOP ? "is a symlink" : strerror(errno);
  else if (!(ok = write(fd, text, (size_t) n) == n)) *why = strerror(errno);
  if (fd >= 0) close(fd);
  return ok;
}

/* One line "PATH OLD NEW" of a record: one of our knobs, once, OLD inside
   its range and a value cpucycles-open changes, NEW what it sets. */
static int parse_line(char *line)
{
  char *a = strchr(line, ' '), *b = a ? strchr(a + 1, ' ') : 0;
  long was, set;
  unsigned int i;
  if (!b) return 0;
  *a = *b = 0;
  for (i = 0; i < KNOBS && strcmp(line, knobs[i].path); ++i) {}
  if (i == KNOBS || recorded[i] || !number(a + 1, &was) || !number(b + 1, &set)) return 0;
  if (!in_range(&knobs[i], was) || !needs_change(&knobs[i], was) || set != knobs[i].want) return 0;
  recorded[i] = 1;
  old[i] = was;
  return 1;
}

/* Opens the record's directory, which must be root's alone (else someone
   else could put a file or symlink where the record goes), and loads the
   record, if there is one: the number of entries, or -1 and *why when the
   directory or the record is not one to trust (then nothing uses it). */
static int load_record(const char **why)
{
  char text[MAXRECORD + 2], *line, *end;
  struct stat st;
  ssize_t n;
  int entries = 0;
  if ((run = open(at(RUN), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 || fstat(run, &st) != 0) {
    *why = errno == ELOOP ? RUN " is a symlink" : strerror(errno);
    return -1;
  }
  if (!root_alone(&st)) {
    *why = RUN " is not a directory only root may write";
    return -1;
  }
  if ((n = read_file(run, RECORD, text, sizeof text, &st, why)) < 0) return strcmp(*why, "not present") ? -1 : 0;
  if (!root_alone(&st)) {
    *why = "it is not root's alone";
    return -1;
  }
  /* no zero byte hiding the rest, and every line whole: a long line is
     refused, not read in pieces */
  *why = "it is not a record cpucycles-open wrote";
  if (n > MAXRECORD || strlen(text) != (size_t) n || strncmp(text, HEAD, strlen(HEAD))) return -1;
  for (line = text + strlen(HEAD); *line; line = end + 1, ++entries) {
    if ((end = strchr(line, '\n'))) *end = 0;
    if (!end || !parse_line(line)) {
      memset(recorded, 0, sizeof recorded);
      return -1;
    }
  }
  return entries;
}

/* Writes the record (or removes it, when it would be empty): to
   RECORD.new, created exclusively (a second cpucycles-open running
   meanwhile fails here, and a symlink planted there is not followed),
   then renamed over RECORD, so the record is always whole. */
static int store_record(const char **why)
{
  char text[MAXRECORD] = HEAD;
  size_t n = strlen(text);
  unsigned int i;
  int fd, ok;
  for (i = 0; i < KNOBS; ++i)
    if (recorded[i]) n += (size_t) snprintf(text + n, sizeof text - n, "%s %ld %ld\n", knobs[i].path, old[i], knobs[i].want);
  if (n == strlen(HEAD)) {
    if (unlinkat(run, RECORD, 0) == 0 || errno == ENOENT) return 1;
  } else if ((fd = openat(run, RECORD ".new", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0600)) < 0) {
    if (errno == EEXIST) {
      *why = RECORD ".new is there: another cpucycles-open is running, or one was stopped midway (then remove it)";
      return 0;
    }
  } else {
    ok = write(fd, text, n) == (ssize_t) n && fsync(fd) == 0;
    if (close(fd) == 0 && ok && renameat(run, RECORD ".new", run, RECORD) == 0) return 1;
    *why = strerror(errno);
    unlinkat(run, RECORD ".new", 0);
    return 0;
  }
  *why = strerror(errno);
  return 0;
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
  int planned[KNOBS] = { 0 }, any = 0, failed = 0, refused = 0, kept = 0;
  const char *why;
  unsigned int i;
  long v;
  /* the record is read only to be kept: a dry run needs none */
  if (!dry_run && load_record(&why) < 0) {
    printf("cpucycles-open: cannot use %s (%s); nothing was changed\n", RECORD_PATH, why);
    return 1;
  }
  for (i = 0; i < KNOBS; ++i) {
    const struct knob *k = &knobs[i];
    int readable = read_knob(k, &v, &why), held = 0; /* held: what cpucycles-open sets */
    if (!readable && k->optional && !strcmp(why, "not present")) {
      printf("%s not present; nothing to do\n", k->path);
    } else if (!readable) {
      printf("%s cannot be read: %s\n", k->path, why);
      ++failed;
    } else if (!in_range(k, v)) {
      printf("%s holds %ld, outside %ld..%ld; left alone\n", k->path, v, k->low, k->high);
      ++failed;
    } else if (needs_change(k, v)) {
      planned[i] = any = 1;
      old[i] = v; /* a value set by hand since an earlier run wins */
    } else {
      printf("%s already %ld\n", k->path, v);
      held = v == k->want;
    }
    /* an earlier run's entry stays while its knob holds what that run set */
    recorded[i] = planned[i] || (recorded[i] && held);
  }
  if (!any) return failed != 0;
  if (!dry_run && !store_record(&why)) {
    printf("cpucycles-open: cannot record the old values in %s (%s); nothing was changed\n", RECORD_PATH, why);
    return 1;
  }
  for (i = 0; i < KNOBS; ++i) {
    if (planned[i] && !change(i, old[i], knobs[i].want)) {
      recorded[i] = 0; /* it kept its value: no entry */
      ++refused;
    }
    kept += recorded[i];
  }
  failed += refused;
  if (dry_run) return failed != 0;
  if (refused && !store_record(&why)) printf("cpucycles-open: %s not rewritten: %s\n", RECORD_PATH, why);
  if (kept) printf("cpucycles-open: old values recorded in %s; --restore puts them back\n", RECORD_PATH);
  return failed != 0;
}

static int restore(void)
{
  int failed = 0, entries;
  const char *why;
  unsigned int i;
  long v;
  if ((entries = load_record(&why)) <= 0) {
    if (entries < 0) printf("cpucycles-open: cannot use %s (%s); nothing was restored\n", RECORD_PATH, why);
    else printf("cpucycles-open: no recorded values in %s; nothing to restore\n", RECORD_PATH);
    return entries < 0;
  }
  for (i = 0; i < KNOBS; ++i) {
    if (!recorded[i]) continue;
    if (!read_knob(&knobs[i], &v, &why)) {
      printf("%s cannot be read: %s\n", knobs[i].path, why);
      ++failed;
    } else if (v != knobs[i].want) { /* someone set it since; theirs wins */
      printf("%s is %ld, not the %ld cpucycles-open set; left alone\n", knobs[i].path, v, knobs[i].want);
      recorded[i] = 0;
    } else if (!change(i, v, old[i])) {
      ++failed;
    } else {
      recorded[i] = dry_run;
    }
  }
  /* what is left is what could not be put back */
  if (!dry_run && !store_record(&why)) printf("cpucycles-open: %s not rewritten: %s\n", RECORD_PATH, why);
  return failed != 0;
}

static void usage(FILE *f)
{
  fprintf(f, "usage: cpucycles-open [--dry-run] [--restore]\n"
             "  Run as root: lets user programs use the best cycle counters until reboot\n"
             "  (perf_event_paranoid at most 2, rdpmc 2, perf_user_access 1, nmi_watchdog 0).\n"
             "  --dry-run     say what would change, change nothing (needs no root)\n"
             "  --restore     put back the values recorded in " RECORD_PATH "\n"
#ifdef CPUCYCLES_OPEN_TEST
             "  test binary only: --root=DIR (act on DIR/proc, DIR/sys, DIR/run), --pretend-uid=N\n"
#endif
             "  See cpucycles-open(1): this opens performance counters to every program.\n");
}

/* 0, or 1 with a message when stdout could not take everything */
static int output_lost(void)
{
  int lost = fflush(stdout) != 0 || ferror(stdout);
  if (fclose(stdout) == 0 && !lost) return 0;
  fprintf(stderr, "cpucycles-open: cannot write its output; see the knobs themselves for what changed\n");
  return 1;
}

int main(int argc, char **argv)
{
  int i, undo = 0, status;
  for (i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--dry-run")) dry_run = 1;
    else if (!strcmp(argv[i], "--restore")) undo = 1;
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
  /* A closed descriptor 0, 1 or 2 would be handed to the record by open(),
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
    fprintf(stderr, "cpucycles-open: must be run as root: it changes kernel settings for every user; "
                    "nothing was changed (try --dry-run to see what it would do)\n");
    return 1;
  }
  status = undo ? restore() : open_up();
  return output_lost() ? 1 : status;
}
