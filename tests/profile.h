/* Machine profiles (issue 11 item 13): one whole selection per kind of
   real machine, through the public API in a fresh process, on a machine
   the test plays.  What the machine is made of:

   - its files (/proc, /sys, /etc), environment (empty), CPUID and
     perf_event_open, through the OS seam (tests/fakeos.h);
   - its time: a simulated clock in nanoseconds that moves only when
     something reads it or a counter (each read costs a fixed time, below),
     so every run is the same on every host, fast or slow, emulated or not;
   - its counters: each row of the table keeps the library's real setup
     and close where this host has them; a read that this host cannot make
     as that machine would (RDPMC faults here, RDTSC ticks at the host's
     rate, the OS clocks run in real time, other ISAs' instructions do not
     exist) is replaced by a model of that instruction on the simulated
     clock.  default-perfevent and default-zero keep their real reads
     (the first reads its counts through the seam).

   Each profile runs twice, each time in a child process (the first call
   happens once a process): as a program calls (first cpucycles(), then
   cpucycles_persecond(), then the trace) and as cpucycles-info calls
   (trace first, which measures every counter).  Both must give the
   profile's expectations: the chosen counter, persecond, the source word
   the trace prints, the chosen counter's scaling and class in the trace, what
   cpucycles() counts over 5 s of the machine's time, and which perf fds
   stay open.  The expectations are also the rows of the table "Machine
   profiles" in doc/counters.md, which each test compares with its own. */
#ifndef CPUCYCLES_TEST_PROFILE_H
#define CPUCYCLES_TEST_PROFILE_H

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"
#include "serve.h"
#include "crash.h"
#include "cpucycles.h"
#include "internal.h"
#include "fakeos.h"
#ifdef __linux__
#include "perf.h"
#endif

/* The table configure generated for this build (build/ARCH/counters.c,
   reached through -I build/ARCH/include as "../counters.c"), under
   another name: the test defines the table the library walks, and takes
   this build's real setups from this one by name. */
#define cpucycles_counters profile_host_table
#define cpucycles_counter_count profile_host_count
#include "../counters.c"
#undef cpucycles_counters
#undef cpucycles_counter_count

#define PROFILE_HOST_ROWS ((int) (sizeof profile_host_table / sizeof profile_host_table[0]))

static const struct cpucycles_counter *host_row(const char *name)
{
  int i;
  for (i = 0; i < PROFILE_HOST_ROWS; ++i)
    if (!strcmp(profile_host_table[i].name, name)) return &profile_host_table[i];
  return 0;
}

/* helpers that not every profile test uses */
#define SHARED static __attribute__((unused))

/* ---- the simulated clock ---- */

#define SIM_START_NS 1000000000000LL /* 1000 s after boot */
#define CLOCK_READ_NS 20             /* clock_gettime, gettimeofday (vDSO) */
#define COUNT_SECONDS 5              /* cpucycles() is read across this much time */

static long long sim_now = SIM_START_NS;
static long long kernel_ns; /* of that, spent in the kernel (perf system calls) */

/* A count at hz ticks per second after t ns: exact, in integers (hz < 1.8e10) */
static long long count_at(long long t, long long hz)
{
  unsigned long long u = (unsigned long long) t, h = (unsigned long long) hz;
  return (long long) (u / 1000000000ULL * h + u % 1000000000ULL * h / 1000000000ULL);
}

static long long at_rate(long long hz)
{
  return count_at(sim_now, hz);
}

/* a read that takes cost_ns and samples a counter of hz at its end */
SHARED long long read_at(long long cost_ns, long long hz)
{
  sim_now += cost_ns;
  return at_rate(hz);
}

static long long sim_nanoseconds(void)
{
  sim_now += CLOCK_READ_NS;
  return sim_now;
}

/* ---- the machine ---- */

#define MACHINE_FILES 16
#define MACHINE_LEAVES 16
struct machine {
  struct { const char *path, *text; } files[MACHINE_FILES];
  long long core_hz;   /* what a core runs at just now */
  long long tick_hz;   /* the ISA's off-core clock: TSC, CNTVCT, time base, TOD */
  long long syscall_ns; /* a perf system call (read, ioctl, open) in the kernel ... */
  long long syscall_user_ns; /* ... and around it in user mode */
  int perf_errno;      /* every perf_event_open fails with this; 0: the PMU answers */
  unsigned int atom_type; /* the E-core PMU's type on hybrid Intel, else 0 */
  int cap_user_rdpmc;  /* what a perf event's mmap'd page says */
  int pmc_width;
  unsigned int leaves[MACHINE_LEAVES][5]; /* CPUID: leaf, eax, ebx, ecx, edx */
  int nleaves;
};
static struct machine M;

/* The core cycles this thread spent in user mode: what a perf event with
   exclude_kernel counts (the library asks for that first, and every
   kernel here grants it), and what the PMU counters that perf or a module
   set up read. */
SHARED long long user_cycles(void)
{
  return count_at(sim_now - kernel_ns, M.core_hz);
}

/* A system call: syscall_user_ns on the user side (libc, the loop
   around it), then syscall_ns in the kernel */
static void syscall_time(void)
{
  sim_now += M.syscall_user_ns + M.syscall_ns;
  kernel_ns += M.syscall_ns;
}

static void file(const char *path, const char *text)
{
  int i;
  for (i = 0; i < MACHINE_FILES; ++i)
    if (!M.files[i].path || !strcmp(M.files[i].path, path)) {
      M.files[i].path = path;
      M.files[i].text = text;
      return;
    }
  abort(); /* a profile with more files than room: the test is wrong */
}

static const char *file_text(const char *path)
{
  int i;
  for (i = 0; i < MACHINE_FILES && M.files[i].path; ++i)
    if (!strcmp(M.files[i].path, path)) return M.files[i].text;
  return 0;
}

static long machine_read_text(const char *path, long offset, char *buf, size_t size)
{
  long n = serve_text(file_text(path), offset, buf, size);
  if (n < 0) errno = ENOENT;
  return n;
}

static const char *machine_getenv(const char *name)
{
  /* the trace's reasons asked for, as cpucycles-info does; nothing else
     set: the profile's sources are its files */
  return strcmp(name, "CPUCYCLES_TRACE_REASONS") ? 0 : "1";
}

static int machine_cpuid(unsigned int leaf, unsigned int subleaf, unsigned int r[4])
{
  int i;
  (void) subleaf;
  r[0] = r[1] = r[2] = r[3] = 0;
  for (i = 0; i < M.nleaves; ++i)
    if (M.leaves[i][0] == leaf) memcpy(r, &M.leaves[i][1], 4 * sizeof r[0]);
  return M.nleaves > 0;
}

SHARED void leaf(unsigned int n, unsigned int a, unsigned int b, unsigned int c, unsigned int d)
{
  unsigned int *l;
  if (M.nleaves == MACHINE_LEAVES) abort();
  l = M.leaves[M.nleaves++];
  l[0] = n; l[1] = a; l[2] = b; l[3] = c; l[4] = d;
}

/* 12 characters as CPUID gives them: EBX, EDX, ECX of leaf 0 */
SHARED unsigned int word(const char *s, int i)
{
  unsigned int w;
  memcpy(&w, s + 4 * i, 4);
  return w;
}

/* An x86 CPU: vendor and highest leaf, signature (CPUID 1 EAX), whether
   it is a guest (CPUID 1 ECX bit 31), and an invariant TSC. */
SHARED void x86_cpu(const char *vendor, unsigned int max, unsigned int signature, int guest)
{
  leaf(0, max, word(vendor, 0), word(vendor, 2), word(vendor, 1));
  leaf(1, signature, 0, guest ? 0x80000000u : 0, 0);
  leaf(0x80000000, 0x80000008, 0, 0, 0);
  leaf(0x80000007, 0, 0, 0, 0x100);
}

/* Intel's architectural PMU (leaf 0xA): version, fixed counters, width */
SHARED void x86_pmu(unsigned int version, unsigned int fixed, unsigned int width)
{
  leaf(0xa, version | 8 << 8 | 48 << 16, 0, 0, fixed | width << 5);
}

static int machine_tsc_faults(void)
{
  return 0; /* prctl says RDTSC runs */
}

/* ---- perf_event, as the kernel answers on this machine ---- */

#define PERF_FIRST_FD 1000
#define PERF_SLOTS 8
#define INTEL_RAW_CYCLES 0x3c

#ifdef __linux__
static struct { int open, atom, user_only; long long since; } perf[PERF_SLOTS];
static struct perf_event_mmap_page pages[PERF_SLOTS];

/* An event's count since it was opened.  The thread stays on cpu0, a
   P-core on hybrid Intel: an E-core event counts nothing. */
static long long event_count(int i)
{
  return perf[i].atom ? 0 : (perf[i].user_only ? user_cycles() : at_rate(M.core_hz)) - perf[i].since;
}

static long knob(const char *path, long otherwise)
{
  const char *text = file_text(path);
  return text ? strtol(text, 0, 10) : otherwise;
}

static int perf_slot(int fd)
{
  return fd >= PERF_FIRST_FD && fd < PERF_FIRST_FD + PERF_SLOTS && perf[fd - PERF_FIRST_FD].open ? fd - PERF_FIRST_FD : -1;
}

static int perf_open_count(void)
{
  int i, n = 0;
  for (i = 0; i < PERF_SLOTS; ++i) n += perf[i].open;
  return n;
}

static long machine_perf_open(void *attr, int pid, int cpu, int group_fd, unsigned long flags)
{
  const struct perf_event_attr *a = attr;
  long paranoid = knob("/proc/sys/kernel/perf_event_paranoid", 2);
  int i, atom = M.atom_type && a->type == M.atom_type && a->config == INTEL_RAW_CYCLES;
  (void) pid; (void) cpu; (void) group_fd; (void) flags;
  syscall_time();
  if (M.perf_errno) { errno = M.perf_errno; return -1; }
  /* above 2 (Debian's 3, Ubuntu's 4) nothing for unprivileged users;
     at 2 only with the kernel excluded */
  if (paranoid > 2 || (paranoid == 2 && !a->exclude_kernel)) { errno = EACCES; return -1; }
  if (!atom && !(a->type == PERF_TYPE_HARDWARE && a->config == PERF_COUNT_HW_CPU_CYCLES)) {
    errno = ENOENT;
    return -1;
  }
  for (i = 0; i < PERF_SLOTS && perf[i].open; ++i) continue;
  if (i == PERF_SLOTS) { errno = EMFILE; return -1; }
  perf[i].open = 1;
  perf[i].atom = atom;
  perf[i].user_only = a->exclude_kernel;
  perf[i].since = 0;
  perf[i].since = event_count(i);
  return PERF_FIRST_FD + i;
}

static long machine_read_fd(int fd, void *buf, size_t size)
{
  int i = perf_slot(fd);
  long long got[2]; /* the count and the event's id (PERF_FORMAT_ID), here its fd */
  syscall_time();
  if (i < 0 || size != sizeof got) { errno = EBADF; return -1; }
  got[0] = event_count(i);
  got[1] = fd;
  memcpy(buf, got, sizeof got);
  return sizeof got;
}

static int machine_ioctl_fd(int fd, unsigned long request, unsigned long arg)
{
  syscall_time();
  if (perf_slot(fd) < 0) { errno = EBADF; return -1; }
  if (request == PERF_EVENT_IOC_ID) *(unsigned long long *) arg = (unsigned long long) fd;
  return 0;
}

static int machine_perf_owned(int fd, unsigned long long id)
{
  return perf_slot(fd) >= 0 && id == (unsigned long long) fd;
}

static int machine_close_fd(int fd)
{
  int i = perf_slot(fd);
  syscall_time();
  if (i < 0) { errno = EBADF; return -1; }
  perf[i].open = 0;
  return 0;
}

static void *machine_map_page(int fd, void *at)
{
  int i = perf_slot(fd);
  (void) at; /* a page of its own each: the old one stays as it was */
  if (i < 0) return 0;
  memset(&pages[i], 0, sizeof pages[i]);
  pages[i].cap_user_rdpmc = M.cap_user_rdpmc ? 1 : 0;
  pages[i].index = 1;
  pages[i].pmc_width = (unsigned short) M.pmc_width;
  return &pages[i];
}

static void machine_unmap_page(void *page)
{
  (void) page;
}

/* whether a cycles event on the core PMU is open: it keeps Intel's
   fixed-function counter 1 counting */
SHARED int core_event_open(void)
{
  int i;
  for (i = 0; i < PERF_SLOTS; ++i)
    if (perf[i].open && !perf[i].atom) return 1;
  return 0;
}

/* A perf counter opens a thread's events on its first read, and the
   rule closes a counter's events while it measures another one; a
   modelled read bypasses the library's read, so it opens them as that
   read would: the core PMU's, and on hybrid Intel the E-core PMU's. */
SHARED void lazy_core_event(void)
{
  struct perf_event_attr a;
  if (core_event_open()) return;
  memset(&a, 0, sizeof a);
  a.type = PERF_TYPE_HARDWARE;
  a.config = PERF_COUNT_HW_CPU_CYCLES;
  a.exclude_kernel = 1;
  if (machine_perf_open(&a, 0, -1, -1, 0) < 0 || !M.atom_type) return;
  a.type = M.atom_type;
  a.config = INTEL_RAW_CYCLES;
  machine_perf_open(&a, 0, -1, -1, 0);
}
#else
static int perf_open_count(void) { return 0; }
SHARED int core_event_open(void) { return 0; }
SHARED void lazy_core_event(void) {}
#endif

/* ---- models of the reads, on the simulated clock ---- */

SHARED long long model_core_cycles(void) /* PMCCNTR, RDPMC of a counter perf put the event on */
{
  sim_now += 3;
  return user_cycles();
}

static long long model_monotonic(void) /* clock_gettime(CLOCK_MONOTONIC) */
{
  return read_at(CLOCK_READ_NS, 1000000000);
}

static long long model_gettimeofday(void)
{
  return read_at(CLOCK_READ_NS, 1000000);
}

SHARED long long model_trap(void) /* an instruction user code may not run here */
{
  fake_crash(SIGILL);
  return 0;
}

SHARED long long model_tick_clock(void) /* RDTSC, CNTVCT_EL0, mftb, stckf */
{
  return read_at(8, M.tick_hz);
}

/* ---- the table the library walks ---- */

/* Up to 16 rows, each of which a test points at a setup, read and close
   at run time; the names live in writable arrays for the same reason. */
struct row {
  long long (*setup)(struct cpucycles_probe *);
  long long (*ticks)(void);
  void (*close)(void);
};
static struct row rows[CPUCYCLES_MAXCOUNTERS];
static char row_name[CPUCYCLES_MAXCOUNTERS][32];

static void set_row(int i, const char *name, const struct cpucycles_counter *real, long long (*ticks)(void))
{
  snprintf(row_name[i], sizeof row_name[i], "%s", name);
  rows[i].setup = real->setup;
  rows[i].close = real->close;
  rows[i].ticks = ticks ? ticks : real->ticks;
}

/* A row for a counter of another ISA: its setup played by the test */
SHARED void set_stand_in(int i, const char *name, long long (*setup)(struct cpucycles_probe *),
                         long long (*ticks)(void), void (*close)(void))
{
  struct cpucycles_counter c;
  c.name = name;
  c.setup = setup;
  c.ticks = ticks;
  c.close = close;
  set_row(i, name, &c, 0);
}

#define SLOT(i) \
  static long long slot_setup##i(struct cpucycles_probe *p) { return rows[i].setup(p); } \
  static long long slot_ticks##i(void) { return rows[i].ticks(); } \
  static void slot_close##i(void) { if (rows[i].close) rows[i].close(); }
SLOT(0) SLOT(1) SLOT(2) SLOT(3) SLOT(4) SLOT(5) SLOT(6) SLOT(7)
SLOT(8) SLOT(9) SLOT(10) SLOT(11) SLOT(12) SLOT(13) SLOT(14) SLOT(15)
#define ROW(i) { row_name[i], slot_setup##i, slot_ticks##i, slot_close##i }

/* The library's table: the first count rows of the slots. */
#define PROFILE_TABLE(count) \
  const struct cpucycles_counter cpucycles_counters[CPUCYCLES_MAXCOUNTERS] = { \
    ROW(0), ROW(1), ROW(2), ROW(3), ROW(4), ROW(5), ROW(6), ROW(7), \
    ROW(8), ROW(9), ROW(10), ROW(11), ROW(12), ROW(13), ROW(14), ROW(15) }; \
  const int cpucycles_counter_count = (count);

/* The rows every Linux build ends with, from this build: real setups;
   the OS clocks read on the simulated clock. */
SHARED int default_rows(int i)
{
  static const char *const names[] = { "default-perfevent", "default-monotonic", "default-gettimeofday", "default-zero" };
  static long long (*const models[])(void) = { 0, model_monotonic, model_gettimeofday, 0 };
  unsigned int k;
  for (k = 0; k < sizeof names / sizeof names[0]; ++k) {
    const struct cpucycles_counter *real = host_row(names[k]);
    if (!real) return -1;
    set_row(i++, names[k], real, models[k]);
  }
  return i;
}

/* The counters cpucycles/options lists for a Linux build of isa, in
   order, as one line ("a b c"): what configure would put in its table.
   default-mach is left out (it compiles only with Mach). */
SHARED int options_order(const char *isa, char *out, size_t size)
{
  FILE *f = fopen("cpucycles/options", "r");
  char line[64];
  size_t n = strlen(isa), used = 0;
  out[0] = 0;
  if (!f) return 0;
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    if (line[0] == '#' || !strcmp(line, "default-mach")) continue;
    if ((!strncmp(line, isa, n) && line[n] == '-') || !strncmp(line, "default-", 8))
      used += (size_t) snprintf(out + used, used < size ? size - used : 0, "%s%s", used ? " " : "", line);
  }
  fclose(f);
  return used < size;
}

/* The first count rows as one line of names */
SHARED void table_order(int count, char *out, size_t size)
{
  int i;
  size_t used = 0;
  out[0] = 0;
  for (i = 0; i < count; ++i)
    used += (size_t) snprintf(out + used, used < size ? size - used : 0, "%s%s", i ? " " : "", row_name[i]);
}

/* ---- a profile and what it must get ---- */

struct profile {
  const char *id;      /* check names: profile_ID_... */
  const char *machine; /* the doc table's first column */
  void (*build)(void); /* sets M, and the rows that depend on it */
  /* expectations */
  const char *chosen;
  long long persecond;
  const char *source;  /* as "cpucycles persecond-source" prints it */
  const char *scaling; /* the chosen counter's "scaling" in the trace */
  const char *klass;   /* what its counts are: "cpucycles class NAME ..." */
  long long per_second; /* cpucycles() per second of the machine's time */
  int fds;             /* perf fds open after the selection: the chosen counter's */
};

#define TRACE_BYTES 6144
struct result {
  int ran;
  char chosen[32], source[96], scaling[32], klass[64];
  long long persecond, count;
  int fds, verdict_ok;
  char trace[TRACE_BYTES];
};

static void plug_machine(void)
{
  fake_os.read_text = machine_read_text;
  fake_os.getenv = machine_getenv;
  fake_os.nanoseconds = sim_nanoseconds;
  fake_os.cpuid = machine_cpuid;
  fake_os.tsc_faults = machine_tsc_faults;
#ifdef __linux__
  fake_os.perf_event_open = machine_perf_open;
  fake_os.read_fd = machine_read_fd;
  fake_os.ioctl_fd = machine_ioctl_fd;
  fake_os.close_fd = machine_close_fd;
  fake_os.perf_owned = machine_perf_owned;
  fake_os.map_page = machine_map_page;
  fake_os.unmap_page = machine_unmap_page;
#endif
}

/* from into to, cut to its size */
static void copy_text(char *to, size_t size, const char *from)
{
  size_t n = strlen(from);
  if (n >= size) n = size - 1;
  memcpy(to, from, n);
  to[n] = 0;
}

/* What the trace says, from its lines */
static void read_trace(FILE *trace, struct result *r)
{
  char line[512], name[64], scaling[64], verdict[128];
  size_t used = 0;
  int n;
  rewind(trace);
  snprintf(verdict, sizeof verdict, "cpucycles counter %s chosen: precision ", r->chosen);
  while (fgets(line, sizeof line, trace)) {
    if (used + strlen(line) < sizeof r->trace) {
      memcpy(r->trace + used, line, strlen(line) + 1);
      used += strlen(line);
    }
    line[strcspn(line, "\n")] = 0;
    if (sscanf(line, "cpucycles tracesetup %d %63s precision %*d scaling %63s only32", &n, name, scaling) == 3 &&
        !strcmp(name, r->chosen))
      copy_text(r->scaling, sizeof r->scaling, scaling);
    if (!strncmp(line, "cpucycles persecond-source ", 27)) copy_text(r->source, sizeof r->source, line + 27);
    if (sscanf(line, "cpucycles class %63s", name) == 1 && !strcmp(name, r->chosen))
      copy_text(r->klass, sizeof r->klass, line + 16 + strlen(name) + 1);
    /* chosen on its merit, and a stated rate agreeing with the clock */
    if (!strncmp(line, verdict, strlen(verdict)) && !strstr(line, "disagrees")) r->verdict_ok = 1;
  }
}

/* In the child: the whole life of a program on this machine. */
static void live(const struct profile *p, int traced, struct result *r)
{
  FILE *trace = tmpfile();
  long long a, b;
  memset(r, 0, sizeof *r);
  if (!trace) return;
  fflush(stdout);
  if (dup2(fileno(trace), 1) < 0) return;
  alarm(60); /* a selection that never ends becomes a failure */
  plug_machine();
  p->build();
  if (traced) cpucycles_tracesetup(); /* as cpucycles-info: every counter measured */
  cpucycles();
  copy_text(r->chosen, sizeof r->chosen, cpucycles_implementation());
  r->persecond = cpucycles_persecond();
  a = cpucycles();
  sim_now += COUNT_SECONDS * 1000000000LL;
  b = cpucycles();
  r->count = b - a;
  r->fds = perf_open_count();
  if (!traced) cpucycles_tracesetup(); /* after the first call: what it measured */
  fflush(stdout);
  read_trace(trace, r);
  r->ran = 1;
}

static int read_all(int fd, void *buf, size_t size)
{
  size_t got = 0;
  while (got < size) {
    ssize_t n = read(fd, (char *) buf + got, size - got);
    if (n <= 0) return 0;
    got += (size_t) n;
  }
  return 1;
}

static int write_all(int fd, const void *buf, size_t size)
{
  size_t put = 0;
  while (put < size) {
    ssize_t n = write(fd, (const char *) buf + put, size - put);
    if (n <= 0) return 0;
    put += (size_t) n;
  }
  return 1;
}

static void run_child(const struct profile *p, int traced, struct result *r)
{
  static struct result out;
  int fds[2], status = 0;
  pid_t pid;
  memset(r, 0, sizeof *r);
  fflush(stdout);
  if (pipe(fds)) return;
  pid = fork();
  if (pid == 0) {
    close(fds[0]);
    live(p, traced, &out);
    _exit(write_all(fds[1], &out, sizeof out) ? 0 : 1);
  }
  close(fds[1]);
  if (pid < 0 || !read_all(fds[0], r, sizeof *r)) r->ran = 0;
  close(fds[0]);
  if (pid > 0) waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status)) r->ran = 0;
  if (!r->ran) snprintf(r->trace, sizeof r->trace, "child ended with status %#x", status);
}

static void print_lines(const char *trace)
{
  const char *line = trace, *eol;
  for (; *line; line = *eol ? eol + 1 : eol) {
    eol = strchr(line, '\n');
    if (!eol) eol = line + strlen(line);
    printf("#   %.*s\n", (int) (eol - line), line);
  }
}

/* |count - want| within a millionth: the reads around the 5 s cost ns */
static int counts_right(long long count, long long want)
{
  long long off = count - want;
  return (off < 0 ? -off : off) <= want / 1000000;
}

static void run_profile(const struct profile *p)
{
  struct result r, t;
  char name[96];
  long long want = p->per_second * COUNT_SECONDS;
  int ok = 1;

  run_child(p, 0, &r);
  run_child(p, 1, &t);
#define CHECK(what, cond, ...) \
  do { \
    snprintf(name, sizeof name, "profile_%s_%s", p->id, what); \
    check(cond, name, __VA_ARGS__); \
    ok &= !!(cond); \
  } while (0)
  CHECK("runs", r.ran && t.ran, "%s", r.ran ? t.trace : r.trace);
  CHECK("chosen", !strcmp(r.chosen, p->chosen) && r.verdict_ok, "chose %s (want %s)%s", r.chosen, p->chosen,
        r.verdict_ok ? "" : "; no clean 'chosen' verdict in the trace");
  /* a measured rate is the machine's within 0.1% (the windows' ends cost
     a little); any other source is exact */
  CHECK("persecond",
        strncmp(p->source, "measured ", 9) ? r.persecond == p->persecond
                                           : llabs(r.persecond - p->persecond) <= p->persecond / 1000,
        "persecond %lld (want %lld%s)", r.persecond, p->persecond, strncmp(p->source, "measured ", 9) ? "" : " within 0.1%");
  CHECK("source", !strcmp(r.source, p->source), "persecond-source '%s' (want '%s')", r.source, p->source);
  CHECK("scaling", !strcmp(r.scaling, p->scaling), "scaling %s (want %s)", r.scaling, p->scaling);
  CHECK("class", !strcmp(r.klass, p->klass), "class '%s' (want '%s')", r.klass, p->klass);
  CHECK("counts", counts_right(r.count, want), "cpucycles() moved %lld in %d s (want %lld)", r.count,
        COUNT_SECONDS, want);
  CHECK("fds", r.fds == p->fds, "%d perf fds open (want %d)", r.fds, p->fds);
  CHECK("traced_same", !strcmp(t.chosen, r.chosen) && t.verdict_ok && t.persecond == r.persecond &&
        !strcmp(t.source, r.source) && !strcmp(t.scaling, r.scaling) && !strcmp(t.klass, r.klass) &&
        counts_right(t.count, want) && t.fds == r.fds,
        "traced first: %s, %lld from '%s', scaling %s, class '%s', %lld counted, %d fds", t.chosen, t.persecond,
        t.source, t.scaling, t.klass, t.count, t.fds);
#undef CHECK
  /* what the machine got, for the reader of the test's output */
  printf("# %s, as a program calls (the trace after its first call):\n", p->id);
  print_lines(r.trace);
  if (!ok) {
    printf("# %s, traced first:\n", p->id);
    print_lines(t.trace);
  }
}

/* ---- the doc table ---- */

#define DOC "doc/counters.md"
#define DOC_SECTION "## Machine profiles"

static void doc_row(const struct profile *p, const char *test, char *out, size_t size)
{
  snprintf(out, size, "| %s | %s | %lld | %s | %s | %s | %lld | %s |", p->machine, p->chosen, p->persecond,
           p->source, p->scaling, p->klass, p->per_second, test);
}

/* The rows of the doc table whose last column is test must be this test's
   profiles, in order, word for word; and every row's test must exist. */
static void check_doc(const char *test, const struct profile *profiles, int n)
{
  FILE *f = fopen(DOC, "r");
  char line[1024], want[1024], name[96], path[128];
  int in = 0, k = 0, bad = 0, strangers = 0;
  snprintf(name, sizeof name, "profile_doc_rows_%s", test);
  if (!f) {
    check(0, name, "cannot read %s", DOC);
    return;
  }
  while (fgets(line, sizeof line, f)) {
    char *last, *end;
    line[strcspn(line, "\n")] = 0;
    if (!strncmp(line, "## ", 3)) in = !strcmp(line, DOC_SECTION);
    if (!in || strncmp(line, "| ", 2) || !strncmp(line, "| machine |", 11)) continue;
    /* the last column: the test that holds this row */
    end = line + strlen(line) - 2;
    for (last = end; last > line && last[-1] != '|'; --last) continue;
    if (end <= last || *end != ' ') continue;
    snprintf(path, sizeof path, "tests/unit/%.*s.c", (int) (end - last - 1), last + 1);
    if (access(path, R_OK)) {
      printf("# %s: no %s\n", line, path);
      ++strangers;
    }
    if (strncmp(last + 1, test, strlen(test)) || last + 1 + strlen(test) != end) continue;
    if (k < n) doc_row(&profiles[k], test, want, sizeof want);
    if (k >= n || strcmp(line, want)) {
      printf("# doc has:  %s\n", line);
      if (k < n) printf("# test has: %s\n", want);
      ++bad;
    }
    ++k;
  }
  fclose(f);
  for (; k < n; ++k) {
    doc_row(&profiles[k], test, want, sizeof want);
    printf("# missing in %s: %s\n", DOC, want);
    ++bad;
  }
  check(!bad, name, "%d rows of %s differ from the test's expectations (above)", bad, DOC);
  snprintf(name, sizeof name, "profile_doc_tests_exist_%s", test);
  check(!strangers, name, "%d rows name a test that does not exist", strangers);
}

static int run_profiles(const char *test, const struct profile *profiles, int n, const char *cannot)
{
  int i;
  check_doc(test, profiles, n);
  if (cannot) {
    skip(test, cannot);
    return checks_failed();
  }
  for (i = 0; i < n; ++i) run_profile(&profiles[i]);
  return checks_failed();
}

#endif
