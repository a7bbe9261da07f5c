/* cpucycles-open: as root, opens up the Linux knobs that keep the best
   cycle counters from user programs, until reboot (SPEC 5), and can put
   them back.  See doc/security.md before running it on a shared machine.

   usage: cpucycles-open [--dry-run] [--restore]

   Each change is printed as "PATH OLD -> NEW"; a knob that cannot be
   changed is printed with the reason.  Exit status 0 when every knob is
   as wanted (or restored) and all of that was printed, 1 otherwise, 2 for
   a wrong option.

   It runs as root, often through sudo on shared machines, so it trusts
   nothing it did not write itself:
   - the old values go into a record (RECORD below) before any knob is
     touched; the record is created exclusively, without following
     symlinks, in a directory only root can change; when it cannot be
     written, nothing changes;
   - --restore writes back only what a well-formed record of this boot,
     owned by root, says, and only values inside each knob's range;
   - knobs are opened without following symlinks and must be regular
     files;
   - nothing on the command line names a file.

   The test binary (built with -DCPUCYCLES_OPEN_TEST by
   tests/integration/open.sh, never installed) also takes --root=DIR
   (act on DIR/proc, DIR/sys and DIR/run) and --pretend-uid=N. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The record: gone at reboot like the changes (/run is a tmpfs). */
#define RECORD_DIR "/run"
#define RECORD RECORD_DIR "/cpucycles-open.saved"
#define RECORD_NEW RECORD ".new"
#define BOOT_ID "/proc/sys/kernel/random/boot_id"
/* first line of a record: "cpucycles-open record boot BOOTID" */
#define RECORD_HEAD "cpucycles-open record boot "
#define MAXRECORD 2048 /* bytes: a full record is under 400 */
#define MAXPATH 4096
#define MAXVALUE 16 /* a knob's text: a small number and a newline */

/* The knobs, what each should become, when it needs changing, and the
   values the kernel gives a meaning to: a value outside them is never
   written, and a knob holding one is left alone. */
enum rule { AT_MOST, EXACTLY, AT_LEAST };
struct knob {
  const char *path;
  long want;
  enum rule rule;
  int optional; /* absent is normal */
  long low, high;
};
static const struct knob knobs[] = {
  /* -1 to 2 upstream; 3 (Debian's patch) and above refuse perf to users
     altogether; 4 is as far as we go */
  { "/proc/sys/kernel/perf_event_paranoid", 2, AT_MOST, 0, -1, 4 },
  /* 2: RDPMC allowed in user code without mapping an event first */
  { "/sys/devices/cpu/rdpmc", 2, EXACTLY, 1, 0, 2 },
  { "/sys/devices/cpu_core/rdpmc", 2, EXACTLY, 1, 0, 2 },
  { "/sys/devices/cpu_atom/rdpmc", 2, EXACTLY, 1, 0, 2 },
  /* arm64 (0, 1), riscv (0 to 2): user reads of perf counters; riscv's 2
     (legacy, every program may rdcycle) is already more open than 1, so
     it stays */
  { "/proc/sys/kernel/perf_user_access", 1, AT_LEAST, 1, 0, 2 },
  /* the NMI watchdog takes a fixed counter and wraps RDPMC counts */
  { "/proc/sys/kernel/nmi_watchdog", 0, EXACTLY, 1, 0, 1 },
};
#define KNOBS (sizeof knobs / sizeof knobs[0])

static int dry_run;

#ifdef CPUCYCLES_OPEN_TEST
static const char *root = "";
static long pretend_uid = -1;
static void full(char *out, const char *path) { snprintf(out, MAXPATH, "%s%s", root, path); }
static long uid(void) { return pretend_uid >= 0 ? pretend_uid : (long) geteuid(); }
/* the tests' files belong to whoever runs them */
static int trusted_owner(uid_t owner) { return owner == 0 || owner == geteuid(); }
#else
static void full(char *out, const char *path) { snprintf(out, MAXPATH, "%s", path); }
static long uid(void) { return (long) geteuid(); }
static int trusted_owner(uid_t owner) { return owner == 0; }
#endif

/* Opens a file that must be a regular file, not reached through a
   symlink as its last part, and never blocks (a FIFO planted there
   answers ENXIO or is refused).  fd, or -1 and *why. */
static int open_regular(const char *path, int flags, const char **why)
{
  struct stat st;
  int fd = open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    *why = errno == ELOOP ? "is a symlink" : errno == ENOENT ? "not present" : strerror(errno);
    return -1;
  }
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    *why = "is not a regular file";
    close(fd);
    return -1;
  }
  return fd;
}

/* Strictly "-?[0-9]+\n?": 1 and *value, or 0. */
static int parse_value(const char *text, size_t n, long *value)
{
  size_t i = 0;
  long v = 0;
  int negative = 0;
  if (n && text[n - 1] == '\n') --n;
  if (i < n && text[i] == '-') { negative = 1; ++i; }
  if (i == n || n - i > 9) return 0;
  for (; i < n; ++i) {
    if (text[i] < '0' || text[i] > '9') return 0;
    v = v * 10 + (text[i] - '0');
  }
  *value = negative ? -v : v;
  return 1;
}

/* 1 and *value, or 0 and *why. */
static int read_knob(const char *path, long *value, const char **why)
{
  char name[MAXPATH], text[MAXVALUE];
  ssize_t n;
  int fd;
  full(name, path);
  if ((fd = open_regular(name, O_RDONLY, why)) < 0) return 0;
  n = read(fd, text, sizeof text);
  if (n < 0) *why = strerror(errno);
  close(fd);
  if (n < 0) return 0;
  if (!parse_value(text, (size_t) n, value)) { *why = "does not hold a number"; return 0; }
  return 1;
}

/* 1, or 0 and *why.  O_TRUNC is what a shell's "echo 2 > KNOB" does:
   kernel knobs ignore it, and it cannot reach another file, as the last
   part may not be a symlink (and a device or FIFO ignores it). */
static int write_knob(const char *path, long value, const char **why)
{
  char name[MAXPATH], text[MAXVALUE];
  int fd, n, ok;
  full(name, path);
  n = snprintf(text, sizeof text, "%ld\n", value);
  if ((fd = open_regular(name, O_WRONLY | O_TRUNC, why)) < 0) return 0;
  ok = write(fd, text, (size_t) n) == n;
  if (!ok) *why = strerror(errno);
  if (close(fd) != 0 && ok) { ok = 0; *why = strerror(errno); }
  return ok;
}

static int needs_change(const struct knob *k, long value)
{
  if (k->rule == AT_MOST) return value > k->want;
  if (k->rule == AT_LEAST) return value < k->want;
  return value != k->want;
}

static int in_range(const struct knob *k, long value) { return value >= k->low && value <= k->high; }

/* --- the record --- */

/* One line "PATH OLD NEW": cpucycles-open set PATH from OLD to NEW. */
struct entry {
  const struct knob *knob;
  long old;
};
static struct entry record[KNOBS];
static int recorded;

static const struct knob *known(const char *path, size_t n)
{
  unsigned int i;
  for (i = 0; i < KNOBS; ++i)
    if (strlen(knobs[i].path) == n && !memcmp(knobs[i].path, path, n)) return &knobs[i];
  return 0;
}

/* This boot's id, so a record left from an earlier boot (where /run is
   not a tmpfs) is never taken for this one's. */
static void boot_id(char *out, size_t size)
{
  char name[MAXPATH], text[64];
  const char *why;
  ssize_t n = -1;
  int fd;
  full(name, BOOT_ID);
  if ((fd = open_regular(name, O_RDONLY, &why)) >= 0) {
    n = read(fd, text, sizeof text - 1);
    close(fd);
  }
  if (n <= 0) n = 0;
  text[n] = 0;
  text[strcspn(text, "\n")] = 0;
  snprintf(out, size, "%s", (text[0] && !strchr(text, ' ')) ? text : "unknown");
}

/* The record's directory, and each directory above it, must be owned by
   root and writable by nobody else: else someone else could put a file
   or a symlink where the record goes.  (The tests' directories are
   checked from their --root down.)  1, or 0 and *why. */
static int trusted_dir(const char **why)
{
  char name[MAXPATH], *slash;
  struct stat st;
  size_t start = 0;
  full(name, RECORD_DIR);
#ifdef CPUCYCLES_OPEN_TEST
  start = strlen(root);
#endif
  for (slash = name + start;; slash = strchr(slash + 1, '/')) {
    char keep = 0;
    if (slash) { keep = *slash; *slash = 0; }
    if (lstat(*name ? name : "/", &st) != 0) { *why = strerror(errno); return 0; }
    if (!S_ISDIR(st.st_mode)) { *why = "a part of its directory is not a directory"; return 0; }
    if (!trusted_owner(st.st_uid)) { *why = "its directory is not owned by root"; return 0; }
    if (st.st_mode & (S_IWGRP | S_IWOTH)) { *why = "its directory is writable by others than root"; return 0; }
    if (!slash) return 1;
    *slash = keep;
  }
}

/* Parses one line "PATH OLD NEW\n" of a record into record[]: only our
   knobs, OLD inside the knob's range and a value cpucycles-open changes,
   NEW what it sets, each knob once.  1, or 0 and *why. */
static int parse_entry(const char *line, size_t n, const char **why)
{
  const char *space = memchr(line, ' ', n), *second;
  const struct knob *k;
  long old, now;
  int i;
  *why = "a line is not one cpucycles-open writes";
  if (!space || !(k = known(line, (size_t) (space - line)))) return 0;
  second = memchr(space + 1, ' ', n - (size_t) (space + 1 - line));
  if (!second) return 0;
  if (!parse_value(space + 1, (size_t) (second - space - 1), &old)) return 0;
  if (!parse_value(second + 1, n - (size_t) (second + 1 - line), &now)) return 0;
  if (!in_range(k, old) || !needs_change(k, old) || now != k->want) {
    *why = "a recorded value is outside what cpucycles-open records";
    return 0;
  }
  for (i = 0; i < recorded; ++i)
    if (record[i].knob == k) { *why = "a knob is recorded twice"; return 0; }
  record[recorded].knob = k;
  record[recorded].old = old;
  ++recorded;
  return 1;
}

/* Loads the record into record[] (empty when there is none, or when it
   is from an earlier boot).  1, or 0 and *why when there is a record that
   cpucycles-open did not write: then it is used for nothing. */
static int load_record(const char **why)
{
  char name[MAXPATH], text[MAXRECORD + 1], head[128], *line, *end;
  struct stat st;
  ssize_t n;
  int fd;
  recorded = 0;
  if (!trusted_dir(why)) return 0;
  full(name, RECORD);
  if ((fd = open_regular(name, O_RDONLY, why)) < 0) return !strcmp(*why, "not present");
  if (fstat(fd, &st) != 0 || !trusted_owner(st.st_uid) || (st.st_mode & (S_IWGRP | S_IWOTH))) {
    *why = "it is not owned by root, or others may write it";
    close(fd);
    return 0;
  }
  n = read(fd, text, sizeof text);
  close(fd);
  if (n < 0 || n > MAXRECORD) { *why = n < 0 ? strerror(errno) : "it is too long"; return 0; }
  text[n] = 0;
  if (memchr(text, 0, (size_t) n)) { *why = "it holds a zero byte"; return 0; }
  boot_id(head, sizeof head);
  line = text;
  if (strncmp(line, RECORD_HEAD, strlen(RECORD_HEAD)) || !(end = strchr(line, '\n'))) {
    *why = "it does not begin as a record of cpucycles-open";
    return 0;
  }
  line += strlen(RECORD_HEAD);
  /* an earlier boot's record, or one no boot can be matched with: an
     unreadable boot id is "unknown" in every boot */
  if (!strcmp(head, "unknown") || (size_t) (end - line) != strlen(head) || memcmp(line, head, strlen(head))) return 1;
  /* every line whole, ended by a newline: a long line is refused, not
     read in pieces */
  for (line = end + 1; *line; line = end + 1) {
    if (!(end = strchr(line, '\n'))) { *why = "its last line is not complete"; recorded = 0; return 0; }
    if (!parse_entry(line, (size_t) (end - line), why)) { recorded = 0; return 0; }
  }
  return 1;
}

/* Writes record[] as the new record: first to RECORD_NEW, created
   exclusively (a second cpucycles-open running meanwhile fails here, and
   a symlink planted there is not followed), then renamed over the old
   record, so the record is always whole.  1, or 0 and *why. */
static int store_record(const char **why)
{
  char name[MAXPATH], temporary[MAXPATH], text[MAXRECORD], head[128];
  int fd, i, ok;
  size_t n;
  if (!trusted_dir(why)) return 0;
  boot_id(head, sizeof head);
  n = (size_t) snprintf(text, sizeof text, "%s%s\n", RECORD_HEAD, head);
  for (i = 0; i < recorded && n < sizeof text; ++i)
    n += (size_t) snprintf(text + n, sizeof text - n, "%s %ld %ld\n", record[i].knob->path, record[i].old,
                           record[i].knob->want);
  full(name, RECORD);
  full(temporary, RECORD_NEW);
  fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0600);
  if (fd < 0) {
    *why = errno == EEXIST ? "cpucycles-open.saved.new is there: another cpucycles-open is running, or one was "
                             "stopped midway (then remove it)"
                           : strerror(errno);
    return 0;
  }
  ok = n < sizeof text && write(fd, text, n) == (ssize_t) n && fsync(fd) == 0;
  if (!ok) *why = n < sizeof text ? strerror(errno) : "too long";
  if (close(fd) != 0 && ok) { ok = 0; *why = strerror(errno); }
  if (ok && rename(temporary, name) != 0) { ok = 0; *why = strerror(errno); }
  if (!ok) unlink(temporary);
  return ok;
}

static void remove_record(void)
{
  char name[MAXPATH];
  full(name, RECORD);
  unlink(name);
}

/* --- the two commands --- */

static int open_up(void)
{
  const struct knob *plan[KNOBS];
  long old[KNOBS];
  const char *why;
  unsigned int i;
  int planned = 0, failed = 0, j;

  /* the record is read only to be kept: a dry run needs none */
  if (!dry_run && !load_record(&why)) {
    printf("cpucycles-open: %s is not a record it can use (%s); nothing was changed\n", RECORD, why);
    return 1;
  }
  for (i = 0; i < KNOBS; ++i) {
    const struct knob *k = &knobs[i];
    long value;
    if (!read_knob(k->path, &value, &why)) {
      if (k->optional && !strcmp(why, "not present")) {
        printf("%s not present; nothing to do\n", k->path);
      } else {
        printf("%s cannot be read: %s\n", k->path, why);
        ++failed;
      }
    } else if (!in_range(k, value)) {
      printf("%s holds %ld, outside %ld..%ld; left alone\n", k->path, value, k->low, k->high);
      ++failed;
    } else if (!needs_change(k, value)) {
      printf("%s already %ld\n", k->path, value);
    } else if (dry_run) {
      printf("%s would change %ld -> %ld\n", k->path, value, k->want);
    } else {
      plan[planned] = k;
      old[planned] = value;
      ++planned;
    }
  }
  if (!planned) return failed ? 1 : 0;

  /* The new record: what this run changes, with the value it found (an
     entry from an earlier run is stale for a knob set since), and the
     earlier entries of knobs that still hold what cpucycles-open set. */
  for (j = 0; j < recorded; ++j) {
    int k, keep = 1;
    long value;
    for (k = 0; k < planned; ++k)
      if (plan[k] == record[j].knob) keep = 0;
    if (!read_knob(record[j].knob->path, &value, &why) || value != record[j].knob->want) keep = 0;
    if (!keep) record[j--] = record[--recorded];
  }
  for (j = 0; j < planned; ++j) {
    record[recorded].knob = plan[j];
    record[recorded].old = old[j];
    ++recorded;
  }
  if (!store_record(&why)) {
    printf("cpucycles-open: cannot record the old values in %s (%s); nothing was changed\n", RECORD, why);
    return 1;
  }

  for (j = 0; j < planned; ++j) {
    if (write_knob(plan[j]->path, plan[j]->want, &why)) {
      printf("%s %ld -> %ld\n", plan[j]->path, old[j], plan[j]->want);
      continue;
    }
    printf("%s could not change %ld -> %ld: %s\n", plan[j]->path, old[j], plan[j]->want, why);
    ++failed;
    for (i = 0; i < (unsigned int) recorded; ++i)
      if (record[i].knob == plan[j]) record[i] = record[--recorded];
  }
  /* Best effort: a knob that kept its value needs no entry (and with
     one, --restore would only say it leaves it alone). */
  if (!recorded) remove_record();
  else if (failed && !store_record(&why)) printf("cpucycles-open: %s not rewritten: %s\n", RECORD, why);
  if (recorded) printf("cpucycles-open: old values recorded in %s; --restore puts them back\n", RECORD);
  return failed ? 1 : 0;
}

static int restore(void)
{
  const char *why;
  int i, failed = 0;
  if (!load_record(&why)) {
    printf("cpucycles-open: %s is not a record it can use (%s); nothing was restored\n", RECORD, why);
    return 1;
  }
  if (!recorded) {
    printf("cpucycles-open: no recorded values of this boot in %s; nothing to restore\n", RECORD);
    return 0;
  }
  for (i = 0; i < recorded; ++i) {
    const struct knob *k = record[i].knob;
    long value;
    if (!read_knob(k->path, &value, &why)) {
      printf("%s cannot be read: %s\n", k->path, why);
      ++failed;
    } else if (value != k->want) {
      /* someone set it since; theirs wins */
      printf("%s is %ld, not the %ld cpucycles-open set; left alone\n", k->path, value, k->want);
      record[i--] = record[--recorded];
    } else if (dry_run) {
      printf("%s would change %ld -> %ld\n", k->path, value, record[i].old);
    } else if (write_knob(k->path, record[i].old, &why)) {
      printf("%s %ld -> %ld\n", k->path, value, record[i].old);
      record[i--] = record[--recorded];
    } else {
      printf("%s could not change %ld -> %ld: %s\n", k->path, value, record[i].old, why);
      ++failed;
    }
  }
  if (dry_run) return failed ? 1 : 0;
  /* what is left is what could not be put back */
  if (!recorded) remove_record();
  else if (!store_record(&why)) printf("cpucycles-open: %s not rewritten: %s\n", RECORD, why);
  return failed ? 1 : 0;
}

static void usage(FILE *f)
{
  fprintf(f,
          "usage: cpucycles-open [--dry-run] [--restore]\n"
          "  Run as root: lets user programs use the best cycle counters until reboot\n"
          "  (perf_event_paranoid at most 2, rdpmc 2, perf_user_access 1, nmi_watchdog 0).\n"
          "  --dry-run     say what would change, change nothing (needs no root)\n"
          "  --restore     put back the values recorded in " RECORD "\n"
#ifdef CPUCYCLES_OPEN_TEST
          "  test binary only: --root=DIR (act on DIR/proc, DIR/sys, DIR/run), --pretend-uid=N\n"
#endif
          "  See doc/security.md: this opens performance counters to every program.\n");
}

/* 0, or 1 with a message when stdout could not take everything. */
static int output_written(void)
{
  int bad = fflush(stdout) != 0 || ferror(stdout);
  if (fclose(stdout) != 0) bad = 1;
  if (bad) fprintf(stderr, "cpucycles-open: cannot write its output; see the knobs themselves for what changed\n");
  return bad;
}

int main(int argc, char **argv)
{
  int i, fd, undo = 0, status;

  for (i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (!strcmp(a, "--dry-run")) dry_run = 1;
    else if (!strcmp(a, "--restore")) undo = 1;
#ifdef CPUCYCLES_OPEN_TEST
    else if (!strncmp(a, "--root=", 7)) root = a + 7;
    else if (!strncmp(a, "--pretend-uid=", 14)) pretend_uid = atol(a + 14);
#endif
    else if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(stdout); return output_written(); }
    else { usage(stderr); return 2; }
  }
  /* A closed descriptor 0, 1 or 2 would be handed to the record or a
     knob by open(), and our printing would land there: fill each with
     /dev/null, and with no stdout to report to, change nothing. */
  for (fd = 0; fd <= 2; ++fd) {
    if (fcntl(fd, F_GETFD) != -1) continue;
    if (open("/dev/null", fd ? O_WRONLY : O_RDONLY) != fd) return 1;
    if (fd == 1) {
      fprintf(stderr, "cpucycles-open: standard output is closed; nothing was changed\n");
      return 1;
    }
  }
  /* a reader that goes away must not stop us between two knobs */
  signal(SIGPIPE, SIG_IGN);

  if (uid() != 0 && !dry_run) {
    fprintf(stderr, "cpucycles-open: must be run as root: it changes kernel settings for every user; "
                    "nothing was changed (try --dry-run to see what it would do)\n");
    return 1;
  }
  status = undo ? restore() : open_up();
  if (output_written()) status = 1;
  return status;
}
