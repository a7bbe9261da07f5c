/* The trace's last lines, the library's verdict (wrapper/trace.c): the
   chosen counter's class, then what it counts, what a count means and
   what would give core cycles, for every class and for the words of
   dropped counters that name a missing PMU or a locked counter.  The
   classes a test machine cannot show are shown here with fake counters. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "fake.h"

static struct cpucycles_selection s;
static char out[8192];

/* Selects over the first count fake slots and keeps the trace the
   library prints of it (stdout is taken over for the call); late: the
   trace asked for after the selection, which then made no words. */
static void trace_of(int count, long long persecond, const char *wanted, int late)
{
  FILE *f = tmpfile();
  int saved = dup(1);
  size_t n;
  out[0] = 0;
  fake_select_with(count, persecond, !late, wanted, &s);
  if (!s.persecond) s.persecond = fake_persecond(&s.persecond_source); /* as the library does before tracing */
  fflush(stdout);
  if (!f || saved < 0 || dup2(fileno(f), 1) < 0) {
    printf("fail trace_captured: no temporary file for stdout\n");
    exit(1);
  }
  cpucycles_trace_print(fake_table, &s);
  fflush(stdout);
  dup2(saved, 1);
  close(saved);
  rewind(f);
  n = fread(out, 1, sizeof out - 1, f);
  out[n] = 0;
  fclose(f);
}

static void trace(int count, long long persecond, const char *wanted)
{
  trace_of(count, persecond, wanted, 0);
}

/* The trace's line that starts with prefix, copied into copy, or "" */
static const char *line_into(const char *prefix, char *copy, size_t size)
{
  const char *l;
  for (l = out; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l))
    if (!strncmp(l, prefix, strlen(prefix))) break;
  snprintf(copy, size, "%.*s", (int) strcspn(l, "\n"), l);
  return copy;
}

/* That line, for a failure's message */
static const char *line(const char *prefix)
{
  static char copy[1024];
  return line_into(prefix, copy, sizeof copy);
}

/* Whether the trace has a line that starts with prefix and holds word */
static int has(const char *prefix, const char *word)
{
  char copy[1024];
  return *line_into(prefix, copy, sizeof copy) && strstr(copy, word);
}

/* The verdict comes last, in order: the class line right after the
   counter lines, then corecycles. */
static int verdict_last(void)
{
  const char *order[] = { "cpucycles class ", "cpucycles corecycles " };
  const char *l = strrchr(out, '\n'), *counter = 0, *p;
  int k;
  for (p = out; (p = strstr(p, "\ncpucycles counter ")); ++p) counter = p + 1;
  if (!counter || !l || l[1]) return 0;
  l = strchr(counter, '\n') + 1; /* the line after the last counter line */
  for (k = 0; k < 2; ++k, l = strchr(l, '\n') + 1)
    if (strncmp(l, order[k], strlen(order[k]))) return 0;
  return !*l;
}

static void core(void)
{
  fake_reset();
  fake_stepper(0, CPUCYCLES_CYCLECOUNTER, 1);
  trace(1, 1000000000, 0);
  check(!strcmp(line("cpucycles class "), "cpucycles class fake0 core") && verdict_last(), "trace_core_class_last",
        "%s", out);
  check(!strcmp(line("cpucycles corecycles "), "cpucycles corecycles yes: fake0 is a core cycle counter"),
        "trace_core_corecycles", "%s", line("cpucycles corecycles "));
}

static void core32(void)
{
  fake_reset();
  fakes[0].setup = CPUCYCLES_EXTEND32;
  fakes[0].kind = FAKE_CLOCK;
  fakes[0].ticks_per_ns = 1;
  fakes[0].advance_ns = 1;
  fakes[0].wrap32 = 1;
  trace(1, 1000000000, 0);
  check(!strcmp(line("cpucycles class "), "cpucycles class fake0 core32") && verdict_last() &&
        has("cpucycles corecycles yes: fake0 ", ""), "trace_core32_words", "%s", out);
}

/* A locked counter is dropped; a working one that lost says its words
   too, but only a dropped counter's words make the corecycles line. */
static void offcore_locked(void)
{
  fake_reset();
  fakes[0].say = "perf_user_access is 0; run cpucycles-open as root";
  fakes[0].need = CPUCYCLES_NEED_OPEN;
  fake_stepper(1, 24000000, 1); /* 100 cycles a tick at 2.4 GHz */
  fake_stepper(2, 24000000, 2);
  fakes[2].say = "no PMU exposed (a working counter's words)";
  fakes[2].need = CPUCYCLES_NEED_PMU;
  trace(3, 2400000000LL, 0);
  check(!strcmp(line("cpucycles class "), "cpucycles class fake1 offcore rate 24000000") && verdict_last(),
        "trace_offcore_class", "%s", out);
  check(has("cpucycles corecycles run cpucycles-open as root, then cpucycles-info again: ",
            "(fake0: perf_user_access is 0; run cpucycles-open as root)"),
        "trace_locked_counter_named", "%s", line("cpucycles corecycles "));
}

/* No PMU outweighs a locked counter: no setting can help then. */
static void maybecore_no_pmu(void)
{
  fake_reset();
  fakes[0].say = "run cpucycles-open as root";
  fakes[0].need = CPUCYCLES_NEED_OPEN;
  fakes[1].say = "no PMU exposed (CPUID leaf 0xA reports version 0)";
  fakes[1].need = CPUCYCLES_NEED_PMU;
  fake_stepper(2, CPUCYCLES_MAYBECYCLECOUNTER, 20);
  trace(3, 2400000000LL, 0);
  check(!strcmp(line("cpucycles class "), "cpucycles class fake2 maybecore") && verdict_last(),
        "trace_maybecore_words", "%s", out);
  check(has("cpucycles corecycles not here: no PMU is exposed here, so no core cycle counter can work and "
            "cpucycles-open cannot change that ", "(fake1: no PMU exposed (CPUID leaf 0xA reports version 0))"),
        "trace_no_pmu_named", "%s", line("cpucycles corecycles "));
}

/* Traced after the first call, the counters kept no words: the dropped
   counter is named alone, not followed by an empty ": ". */
static void no_pmu_late(void)
{
  fake_reset();
  fakes[0].say = "no PMU exposed (CPUID leaf 0xA reports version 0)";
  fakes[0].need = CPUCYCLES_NEED_PMU;
  fake_stepper(1, CPUCYCLES_MAYBECYCLECOUNTER, 20);
  trace_of(2, 2400000000LL, 0, 1);
  check(has("cpucycles corecycles not here: ", "cannot change that (fake0); in a guest"),
        "trace_late_names_counter_alone", "%s", line("cpucycles corecycles "));
}

static void measured(void)
{
  fake_reset();
  fakes[0].setup = CPUCYCLES_FINDMULTIPLIER;
  fakes[0].kind = FAKE_CLOCK;
  fakes[0].ticks_per_ns = 0.024;
  fakes[0].advance_ns = 100;
  trace(1, 2400000000LL, 0);
  check(!strcmp(line("cpucycles class "), "cpucycles class fake0 offcore rate measured") && verdict_last() &&
        has("cpucycles corecycles none of the core cycle counters compiled in works here", ""),
        "trace_measured_words", "%s", out);
}

static void none(void)
{
  fake_reset();
  fakes[1].kind = FAKE_STUCK;
  fakes[1].setup = CPUCYCLES_CYCLECOUNTER;
  trace(2, 1000000000, 0);
  check(!strcmp(line("cpucycles class "), "cpucycles class fake1 none") && verdict_last() &&
        has("cpucycles corecycles none of the core cycle counters compiled in works here", ""),
        "trace_none_words", "%s", out);
}

/* A counter chosen by CPUCYCLES_IMPLEMENTATION: the variable is named */
static void wanted(void)
{
  fake_reset();
  fake_stepper(0, CPUCYCLES_CYCLECOUNTER, 1);
  fake_stepper(1, CPUCYCLES_MAYBECYCLECOUNTER, 1);
  trace(2, 1000000000, "fake1");
  check(has("cpucycles wanted CPUCYCLES_IMPLEMENTATION=fake1 used", "") &&
        !strcmp(line("cpucycles class "), "cpucycles class fake1 maybecore") &&
        has("cpucycles corecycles CPUCYCLES_IMPLEMENTATION chose fake1: unset it", ""),
        "trace_wanted_named", "%s", out);
}

/* The environment's rate is the last source: the trace says when an
   earlier one won, and says nothing when it was used. */
static void env_rate(void)
{
  fake_reset();
  fake_stepper(0, CPUCYCLES_CYCLECOUNTER, 1);
  fake_env_persecond = "3000000000";
  trace(1, 2000000000, 0);
  check(has("cpucycles wanted cpucyclespersecond=3000000000 ignored: file /etc/cpucyclespersecond states the rate", ""),
        "trace_env_rate_ignored_said", "%s", line("cpucycles wanted "));
  trace(1, 0, 0); /* the file says 0, no rate: the environment's is taken */
  check(!strcmp(s.persecond_source, "env cpucyclespersecond") && s.persecond == 3000000000LL &&
        !strstr(out, "cpucycles wanted cpucyclespersecond"),
        "trace_env_rate_used_not_said", "source %s, %lld; %s", s.persecond_source, s.persecond, line("cpucycles wanted "));
  fake_env_persecond = 0;
}

/* A program's own tracesetup (no reasons asked for) gets the reference's
   lines and only those: one per counter, in order (a program that prints
   CSV after them gets nothing else first). */
static void reference_lines_only(void)
{
  const char *l;
  int lines = 0, bad = 0;
  fake_reasons = 0;
  trace(3, 2000000000, 0);
  fake_reasons = "1";
  for (l = out; *l; l = strchr(l, '\n') + 1, ++lines)
    bad |= strncmp(l, "cpucycles tracesetup ", 21) || !strchr(l, '\n');
  check(!bad && lines == 3, "trace_reference_lines_only", "%d lines:\n%s", lines, out);
}

int main(void)
{
  (void) skip; (void) fake_trapper; (void) fake_select; /* shared helpers this test has no use for */
  core();
  core32();
  offcore_locked();
  maybecore_no_pmu();
  no_pmu_late();
  measured();
  none();
  wanted();
  env_rate();
  reference_lines_only();
  return checks_failed();
}
