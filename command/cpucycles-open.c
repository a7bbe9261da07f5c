/* cpucycles-open: as root, opens up the Linux knobs that keep the best
   cycle counters from user programs, until reboot (SPEC 5), and can put
   them back.  See doc/security.md before running it on a shared machine.

   usage: cpucycles-open [--dry-run] [--restore] [--saved=FILE]
   testing only: [--root=DIR] [--pretend-uid=N]

   Each change is printed as "PATH OLD -> NEW"; a knob that cannot be
   changed is printed with the reason.  Every real change is recorded in
   the saved file (default /run/cpucycles-open.saved, gone at reboot like
   the changes) as "PATH OLD NEW", so --restore can put OLD back where the
   knob still holds NEW.  Exit status 0 when every knob is as wanted (or
   restored), 1 otherwise. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SAVED_DEFAULT "/run/cpucycles-open.saved"
#define MAXPATH 4096
#define MAXSAVED 16

/* The knobs, what each should become, and when it needs changing. */
enum rule { AT_MOST, EXACTLY, AT_LEAST };
struct knob {
  const char *path;
  long want;
  enum rule rule;
  int optional; /* absent is normal: say nothing */
};
static const struct knob knobs[] = {
  /* 3 and above (a Debian patch) refuse perf to users altogether */
  { "/proc/sys/kernel/perf_event_paranoid", 2, AT_MOST, 0 },
  /* 2: RDPMC allowed in user code without mapping an event first */
  { "/sys/devices/cpu/rdpmc", 2, EXACTLY, 1 },
  { "/sys/devices/cpu_core/rdpmc", 2, EXACTLY, 1 },
  { "/sys/devices/cpu_atom/rdpmc", 2, EXACTLY, 1 },
  /* arm64, riscv: user reads of perf counters; riscv's 2 (legacy, every
     program may rdcycle) is already more open than 1, so it stays */
  { "/proc/sys/kernel/perf_user_access", 1, AT_LEAST, 1 },
  /* the NMI watchdog takes a fixed counter and wraps RDPMC counts */
  { "/proc/sys/kernel/nmi_watchdog", 0, EXACTLY, 1 },
};
#define KNOBS (sizeof knobs / sizeof knobs[0])

static const char *root = "";
static int dry_run;

static void under_root(char *out, const char *path)
{
  snprintf(out, MAXPATH, "%s%s", root, path);
}

/* 1 and *value, or 0 and *why. */
static int read_value(const char *path, long *value, const char **why)
{
  char full[MAXPATH], text[64] = "", *end;
  FILE *f;
  under_root(full, path);
  if (access(full, F_OK) != 0) { *why = "not present"; return 0; }
  if (!(f = fopen(full, "r"))) { *why = strerror(errno); return 0; }
  if (!fgets(text, sizeof text, f)) text[0] = 0;
  fclose(f);
  *value = strtol(text, &end, 10);
  if (end == text) { *why = "does not hold a number"; return 0; }
  return 1;
}

/* 1, or 0 with errno set. */
static int write_value(const char *path, long value)
{
  char full[MAXPATH], text[32];
  int fd, n, ok;
  under_root(full, path);
  n = snprintf(text, sizeof text, "%ld\n", value);
  fd = open(full, O_WRONLY | O_TRUNC);
  if (fd < 0) return 0;
  ok = write(fd, text, (size_t) n) == n;
  if (close(fd) != 0) ok = 0;
  return ok;
}

/* Sets path from value to want, or says it would (--dry-run), printing
   one line either way.  Returns 1 if written, 0 for a dry run, -1 if the
   write failed. */
static int change(const char *path, long value, long want)
{
  if (dry_run) {
    printf("%s would change %ld -> %ld\n", path, value, want);
    return 0;
  }
  if (!write_value(path, want)) {
    printf("%s could not change %ld -> %ld: %s\n", path, value, want, strerror(errno));
    return -1;
  }
  printf("%s %ld -> %ld\n", path, value, want);
  return 1;
}

static int needs_change(const struct knob *k, long value)
{
  if (k->rule == AT_MOST) return value > k->want;
  if (k->rule == AT_LEAST) return value < k->want;
  return value != k->want;
}

/* The saved file: lines "PATH OLD NEW". */
struct saved {
  char path[256];
  long old, now;
};
static struct saved saved[MAXSAVED];
static int saved_count;

static const struct knob *known(const char *path)
{
  unsigned int i;
  for (i = 0; i < KNOBS; ++i)
    if (!strcmp(knobs[i].path, path)) return &knobs[i];
  return 0;
}

static void load_saved(const char *file)
{
  FILE *f = fopen(file, "r");
  char line[512];
  saved_count = 0;
  if (!f) return;
  while (saved_count < MAXSAVED && fgets(line, sizeof line, f)) {
    struct saved *s = &saved[saved_count];
    if (sscanf(line, "%255s %ld %ld", s->path, &s->old, &s->now) != 3) continue;
    /* only our own knobs: a saved file never makes root write elsewhere */
    if (!known(s->path)) continue;
    ++saved_count;
  }
  fclose(f);
}

/* Writes the saved file whole, through a temporary and a rename. */
static int store_saved(const char *file)
{
  char tmp[MAXPATH + 8];
  FILE *f;
  int i, ok;
  snprintf(tmp, sizeof tmp, "%s.new", file);
  f = fopen(tmp, "w");
  if (!f) return 0;
  for (i = 0; i < saved_count; ++i) fprintf(f, "%s %ld %ld\n", saved[i].path, saved[i].old, saved[i].now);
  ok = fflush(f) == 0;
  if (fclose(f) != 0) ok = 0;
  if (ok) ok = rename(tmp, file) == 0;
  if (!ok) unlink(tmp);
  return ok;
}

/* Remembers OLD for a knob we changed; a knob changed by an earlier run
   keeps that run's OLD, the value from before cpucycles-open. */
static void remember(const char *path, long old, long now)
{
  int i;
  for (i = 0; i < saved_count; ++i)
    if (!strcmp(saved[i].path, path)) {
      saved[i].now = now;
      return;
    }
  if (saved_count == MAXSAVED) return;
  snprintf(saved[saved_count].path, sizeof saved[saved_count].path, "%s", path);
  saved[saved_count].old = old;
  saved[saved_count].now = now;
  ++saved_count;
}

static int open_up(const char *saved_file)
{
  unsigned int i;
  int failed = 0, changed = 0;
  load_saved(saved_file);
  for (i = 0; i < KNOBS; ++i) {
    const struct knob *k = &knobs[i];
    const char *why;
    long value;
    int done;
    if (!read_value(k->path, &value, &why)) {
      if (k->optional && !strcmp(why, "not present")) {
        printf("%s not present; nothing to do\n", k->path);
        continue;
      }
      printf("%s cannot be read: %s\n", k->path, why);
      ++failed;
      continue;
    }
    if (!needs_change(k, value)) {
      printf("%s already %ld\n", k->path, value);
      continue;
    }
    done = change(k->path, value, k->want);
    if (done < 0) ++failed;
    if (done <= 0) continue;
    remember(k->path, value, k->want);
    ++changed;
  }
  if (changed && !store_saved(saved_file)) {
    printf("cpucycles-open: could not record old values in %s: %s; --restore will not know them\n",
           saved_file, strerror(errno));
    ++failed;
  } else if (changed) {
    printf("cpucycles-open: old values recorded in %s; --restore puts them back\n", saved_file);
  }
  return failed ? 1 : 0;
}

static int restore(const char *saved_file)
{
  int i, failed = 0;
  load_saved(saved_file);
  if (!saved_count) {
    printf("cpucycles-open: no recorded values in %s; nothing to restore\n", saved_file);
    return 0;
  }
  for (i = 0; i < saved_count; ++i) {
    struct saved *s = &saved[i];
    const char *why;
    long value;
    if (!read_value(s->path, &value, &why)) {
      printf("%s cannot be read: %s\n", s->path, why);
      ++failed;
      continue;
    }
    if (value != s->now) {
      /* someone set it since; theirs wins */
      printf("%s is %ld, not the %ld cpucycles-open set; left alone\n", s->path, value, s->now);
      continue;
    }
    if (change(s->path, value, s->old) < 0) ++failed;
  }
  if (!dry_run && !failed) unlink(saved_file);
  return failed ? 1 : 0;
}

static void usage(FILE *f)
{
  fprintf(f,
          "usage: cpucycles-open [--dry-run] [--restore] [--saved=FILE]\n"
          "  Run as root: lets user programs use the best cycle counters until reboot\n"
          "  (perf_event_paranoid at most 2, rdpmc 2, perf_user_access 1, nmi_watchdog 0).\n"
          "  --dry-run     say what would change, change nothing (needs no root)\n"
          "  --restore     put back the values the earlier runs recorded\n"
          "  --saved=FILE  where old values are recorded (default " SAVED_DEFAULT ")\n"
          "  for testing only: --root=DIR (act on DIR/proc, DIR/sys, DIR/run), --pretend-uid=N\n"
          "  See doc/security.md: this opens performance counters to every program.\n");
}

int main(int argc, char **argv)
{
  const char *saved_option = 0;
  char saved_file[MAXPATH];
  long uid = (long) geteuid(), pretend = -1;
  int i, undo = 0;

  for (i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (!strcmp(a, "--dry-run")) dry_run = 1;
    else if (!strcmp(a, "--restore")) undo = 1;
    else if (!strncmp(a, "--saved=", 8)) saved_option = a + 8;
    else if (!strncmp(a, "--root=", 7)) root = a + 7;
    else if (!strncmp(a, "--pretend-uid=", 14)) pretend = atol(a + 14);
    else if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(stdout); return 0; }
    else { usage(stderr); return 2; }
  }
  /* Pretending only ever takes root away, except on a --root test tree,
     where there is nothing root could do that the user cannot. */
  if (pretend > 0 || (pretend == 0 && *root)) uid = pretend;
  if (saved_option) snprintf(saved_file, sizeof saved_file, "%s", saved_option);
  else snprintf(saved_file, sizeof saved_file, "%s%s", root, SAVED_DEFAULT);

  if (uid != 0 && !dry_run) {
    fprintf(stderr, "cpucycles-open: must be run as root: it changes kernel settings for every user; "
                    "nothing was changed (try --dry-run to see what it would do)\n");
    return 1;
  }
  return undo ? restore(saved_file) : open_up(saved_file);
}
