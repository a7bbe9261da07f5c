/* The perf counters against a fake machine played through the OS seam:
   files, CPUID, perf_event_open, read, ioctl, close and the mmap'd page are
   all the test's, so an Intel hybrid, an AMD, an old Core 2 and a locked-down
   kernel can be tried on any Linux host without a PMU. */
#include <errno.h>
#include <string.h>
#include "check.h"
#include "serve.h"
#include "internal.h"
#include "fakeos.h"

#ifndef __linux__
int main(void)
{
  skip("perf", "perf_event is Linux only");
  return 0;
}
#else
#include "perf.h"
#include "x86.h"

/* a probe's words */
static const char *words(const struct cpucycles_probe *probe)
{
  return probe->words;
}

/* Counters of this build, found by name in the generated table (a
   counter left out by configure is simply not there). */
static const struct cpucycles_counter *counter(const char *name)
{
  int i;
  for (i = 0; i < cpucycles_counter_count; ++i)
    if (!strcmp(cpucycles_counters[i].name, name)) return &cpucycles_counters[i];
  return 0;
}
static const struct cpucycles_counter *ff, *pmc, *pmcff, *pe;

/* ---- the fake machine ---- */

#define FILES 8
static struct { const char *path, *text; } files[FILES];

static void file(const char *path, const char *text)
{
  int i;
  for (i = 0; i < FILES; ++i)
    if (!files[i].path || !strcmp(files[i].path, path)) {
      files[i].path = path;
      files[i].text = text;
      return;
    }
}

static long fake_read_text(const char *path, long offset, char *buf, size_t size)
{
  int i;
  for (i = 0; i < FILES; ++i)
    if (files[i].path && files[i].text && !strcmp(files[i].path, path))
      return serve_text(files[i].text, offset, buf, size);
  return serve_text(0, offset, buf, size);
}

/* CPUID: vendor, and leaf 0xA's version, fixed count and width */
static const char *vendor; /* 12 characters */
static unsigned int pmc_version, fixed_counters, fixed_width;

static int fake_cpuid(unsigned int leaf, unsigned int subleaf, unsigned int r[4])
{
  (void) subleaf;
  r[0] = r[1] = r[2] = r[3] = 0;
  if (leaf == 0) {
    r[0] = 0x16;
    memcpy(&r[1], vendor, 4);
    memcpy(&r[3], vendor + 4, 4);
    memcpy(&r[2], vendor + 8, 4);
  }
  if (leaf == 0xa) {
    r[0] = pmc_version | 8 << 8 | 48 << 16;
    r[3] = fixed_counters | fixed_width << 5;
  }
  return 1;
}

/* perf_event_open: every call recorded; errors scripted */
#define CALLS 16
#define FIRST_FD 100
static struct perf_event_attr opened[CALLS];
static unsigned long open_flags[CALLS];
static int opens;          /* calls made */
static int open_errno;     /* refuse every call with this, if nonzero */
static int refuse_kernel;  /* refuse exclude_kernel with EACCES */
static int refuse_type = -1; /* refuse this PMU type with EINVAL */
static int next_fd;
static int is_open[FIRST_FD + CALLS];
static long long counts[FIRST_FD + CALLS];
static int plain_read_stuck; /* a running event's plain read does not move */
static int disabled[FIRST_FD + CALLS];
static int ioctls, closes;

static long fake_perf_event_open(void *attr, int pid, int cpu, int group_fd, unsigned long flags)
{
  struct perf_event_attr *a = attr;
  int fd;
  (void) pid; (void) cpu; (void) group_fd;
  if (opens < CALLS) {
    opened[opens] = *a;
    open_flags[opens] = flags;
  }
  ++opens;
  if (open_errno) { errno = open_errno; return -1; }
  if (refuse_kernel && a->exclude_kernel) { errno = EACCES; return -1; }
  if ((int) a->type == refuse_type) { errno = EINVAL; return -1; }
  fd = next_fd++;
  is_open[fd] = 1;
  counts[fd] = fd == FIRST_FD ? 1000000 : 500000;
  return fd;
}

/* a read gives the count and the event's id (PERF_FORMAT_ID): here its fd */
static long fake_read_fd(int fd, void *buf, size_t size)
{
  long long got[2];
  if (fd < FIRST_FD || fd >= FIRST_FD + CALLS || !is_open[fd] || size != sizeof got) { errno = EBADF; return -1; }
  if (!plain_read_stuck || disabled[fd]) counts[fd] += 1000;
  got[0] = counts[fd];
  got[1] = fd;
  memcpy(buf, got, sizeof got);
  return sizeof got;
}

static int fake_perf_owned(int fd, unsigned long long id)
{
  return fd >= FIRST_FD && fd < FIRST_FD + CALLS && is_open[fd] && id == (unsigned long long) fd;
}

static int fake_ioctl_fd(int fd, unsigned long request, unsigned long arg)
{
  if (request == PERF_EVENT_IOC_ID) {
    *(unsigned long long *) arg = (unsigned long long) fd;
    return 0;
  }
  ++ioctls;
  if (request == PERF_EVENT_IOC_DISABLE) disabled[fd] = 1;
  if (request == PERF_EVENT_IOC_ENABLE) disabled[fd] = 0;
  return 0;
}

static int fake_close_fd(int fd)
{
  ++closes;
  if (fd < FIRST_FD || fd >= FIRST_FD + CALLS || !is_open[fd]) return -1;
  is_open[fd] = 0;
  return 0;
}

static int still_open(void)
{
  int fd, n = 0;
  for (fd = FIRST_FD; fd < FIRST_FD + CALLS; ++fd) n += is_open[fd];
  return n;
}

/* the mmap'd perf_event_mmap_page */
static struct perf_event_mmap_page page;
static int map_fails, mapped;

static void *fake_map_page(int fd, void *at)
{
  (void) fd;
  if (at == &page) --mapped; /* mapped over */
  if (map_fails) return 0;
  ++mapped;
  return &page;
}

static void fake_unmap_page(void *p)
{
  if (p == &page) --mapped;
}

/* A clean machine: Intel, PMC version 5, 4 fixed counters of 48 bits,
   paranoid 2, no rdpmc files, not hybrid. */
static void machine(const char *v)
{
  memset(files, 0, sizeof files);
  file("/proc/sys/kernel/perf_event_paranoid", "2\n");
  vendor = v;
  pmc_version = 5; fixed_counters = 4; fixed_width = 48;
  opens = open_errno = refuse_kernel = 0;
  refuse_type = -1;
  next_fd = FIRST_FD;
  memset(is_open, 0, sizeof is_open);
  memset(disabled, 0, sizeof disabled);
  plain_read_stuck = ioctls = closes = 0;
  memset(&page, 0, sizeof page);
  map_fails = mapped = 0;
  /* cpucycles/perf.c remembers, for the process, an event the kernel said
     it lacks (ENOENT, ENODEV, ENOSYS) and has no way to forget it: the
     machines that refuse with those errors come last (open_fallbacks) */
}

#define INTEL "GenuineIntel"
#define AMD "AuthenticAMD"

/* ---- running a setup the way selection does ---- */

static long long fake_step;
static long long fake_ticks(void)
{
  return fake_step += 7;
}


/* Runs setup through the real selection (with a harmless read) so its
   words land in the trace as cpucycles-info would show them.  Returns
   the setup class; *says gets the words (valid until the next probe) and
   probed what else the counter said of itself.  Closing is the test's
   job. */
static struct cpucycles_probe probed;
static long long probe(const struct cpucycles_counter *c, const char **says)
{
  static struct cpucycles_selection s;
  struct cpucycles_counter table[1];
  table[0].name = c->name;
  table[0].setup = c->setup;
  table[0].ticks = fake_ticks;
  table[0].close = c->close;
  cpucycles_select(table, 1, vsnprintf, &s);
  probed = s.candidate[0].probe;
  *says = words(&s.candidate[0].probe);
  return s.candidate[0].setup;
}

static int has(const char *text, const char *part)
{
  return strstr(text, part) != 0;
}

/* ---- scenarios ---- */

static void intel_hybrid(void)
{
  const char *says;
  long long class;
  if (!ff) { skip("intel_hybrid", "amd64-perfpmcff not in this build"); return; }
  machine(INTEL);
  file("/sys/devices/cpu_core/rdpmc", "2\n");
  file("/sys/devices/cpu_atom/rdpmc", "2\n");
  file("/sys/bus/event_source/devices/cpu_atom/type", "8\n");
  class = probe(ff, &says);
  check(class == CPUCYCLES_CYCLECOUNTER, "intel_hybrid_perfpmcff_setup", "class %lld (%s)", class, says);
  check(still_open() == 2, "intel_hybrid_two_fds_open", "%d open", still_open());
  check(opened[0].type == PERF_TYPE_HARDWARE && opened[0].config == PERF_COUNT_HW_CPU_CYCLES,
        "intel_hybrid_first_fd_is_hardware_cycles", "type %u config %llu", opened[0].type,
        (unsigned long long) opened[0].config);
  check(opens == 2 && opened[1].type == 8 && opened[1].config == 0x3c, "intel_hybrid_second_fd_on_cpu_atom_type_8",
        "%d opens, type %u config %#llx", opens, opened[1].type, (unsigned long long) opened[1].config);
  check(open_flags[0] == PERF_FLAG_FD_CLOEXEC && open_flags[1] == PERF_FLAG_FD_CLOEXEC, "perf_fds_cloexec",
        "flags %lu %lu", open_flags[0], open_flags[1]);
  check(!probed.may_trap && mapped == 1, "perfpmcff_maps_its_page_not_trapping",
        "may_trap %d, %d pages mapped", probed.may_trap, mapped);
  ff->close();
  check(still_open() == 0, "intel_hybrid_close_closes_both", "%d open", still_open());
}

/* default-perfevent is on every Linux ISA: no CPUID involved */
static void hybrid_perfevent(void)
{
  const char *says;
  long long class, a, b;
  if (!pe) { skip("intel_hybrid_perfevent", "default-perfevent not in this build"); return; }
  machine(INTEL);
  file("/sys/bus/event_source/devices/cpu_atom/type", "8\n");
  class = probe(pe, &says);
  check(class == CPUCYCLES_CYCLECOUNTER && still_open() == 2, "intel_hybrid_perfevent_two_fds",
        "class %lld, %d open (%s)", class, still_open(), says);
  /* the limits past which a thread counts time, said where the user looks */
  check(has(says, "past 256 threads") && has(says, "perf fds (a quarter of the fd limit)"),
        "perfevent_says_its_thread_limits", "says '%s'", says);
  a = pe->ticks();
  b = counts[FIRST_FD] + counts[FIRST_FD + 1];
  check(a == b && a > 1500000, "intel_hybrid_perfevent_counts_summed", "ticks %lld, fds hold %lld", a, b);
  check(ioctls == 0, "perfevent_plain_read_where_it_works", "%d ioctls", ioctls);
  pe->close();
  check(still_open() == 0, "intel_hybrid_perfevent_close", "%d open", still_open());

  /* the E-core PMU refusing leaves one fd and a note, not a skip */
  machine(INTEL);
  file("/sys/bus/event_source/devices/cpu_atom/type", "8\n");
  refuse_type = 8;
  class = probe(pe, &says);
  check(class == CPUCYCLES_CYCLECOUNTER && still_open() == 1 && has(says, "E-core PMU (type 8)"),
        "ecore_refused_keeps_core_fd", "class %lld, %d open, says '%s'", class, still_open(), says);
  pe->close();
}

static void perfevent_toggle(void)
{
  const char *says;
  long long class, a, b;
  int before;
  if (!pe) { skip("perfevent_toggle", "default-perfevent not in this build"); return; }
  machine(AMD);
  plain_read_stuck = 1;
  class = probe(pe, &says);
  check(class == CPUCYCLES_CYCLECOUNTER && has(says, "between disable and enable"),
        "perfevent_toggles_where_plain_read_is_stuck", "class %lld, says '%s'", class, says);
  before = ioctls;
  a = pe->ticks();
  b = pe->ticks();
  check(b > a && ioctls == before + 4, "perfevent_toggled_reads_advance", "%lld then %lld, %d ioctls", a, b,
        ioctls - before);
  pe->close();
  check(still_open() == 0, "perfevent_toggle_close", "%d open", still_open());
}

static void old_intel(void)
{
  const char *says;
  long long class;
  if (!ff) { skip("old_intel", "amd64-perfpmcff not in this build"); return; }
  machine(INTEL);
  pmc_version = 2; fixed_counters = 3; fixed_width = 40;
  class = probe(ff, &says);
  check(class == CPUCYCLES_SKIP && has(says, "PMC version 2 < 3") && opens == 0,
        "pmc_version_2_width_40_skips", "class %lld, %d opens, says '%s'", class, opens, says);
  machine(INTEL);
  pmc_version = 3; fixed_counters = 3; fixed_width = 40;
  class = probe(ff, &says);
  check(class == CPUCYCLES_SKIP && has(says, "width 40 < 48") && opens == 0,
        "fixed_width_40_skips", "class %lld, says '%s'", class, says);
}

static void knobs(void)
{
  const char *says;
  long long class;
  if (!ff || !pmc) {
    skip("knobs", "amd64 perf counters not in this build");
    return;
  }
  machine(INTEL);
  file("/proc/sys/kernel/perf_event_paranoid", "3\n");
  class = probe(ff, &says);
  /* the counters open first (cheap where perf has no cycles event) and
     then read the knobs: a refusal must leave nothing open */
  check(class == CPUCYCLES_SKIP && !strcmp(says, "perf_event_paranoid is 3; run cpucycles-open as root") && still_open() == 0,
        "paranoid_3_skips_perfpmcff", "class %lld, %d open, says '%s'", class, still_open(), says);
  machine(AMD);
  file("/proc/sys/kernel/perf_event_paranoid", "4\n");
  class = probe(pmc, &says);
  check(class == CPUCYCLES_SKIP && has(says, "perf_event_paranoid is 4") && still_open() == 0,
        "paranoid_4_skips_perfpmc", "class %lld, says '%s'", class, says);
  machine(INTEL);
  file("/sys/devices/cpu/rdpmc", "1\n");
  class = probe(ff, &says);
  /* the words say the least rdpmc value, no longer which file holds it */
  check(class == CPUCYCLES_SKIP && has(says, "rdpmc is 1") && still_open() == 0,
        "rdpmc_file_1_skips", "class %lld, %d open, says '%s'", class, still_open(), says);
  machine(INTEL);
  file("/sys/devices/cpu_core/rdpmc", "2\n");
  file("/sys/devices/cpu_atom/rdpmc", "0\n");
  class = probe(ff, &says);
  check(class == CPUCYCLES_SKIP && has(says, "rdpmc is 0") && still_open() == 0, "rdpmc_atom_file_0_skips",
        "class %lld, %d open, says '%s'", class, still_open(), says);
  machine(INTEL);
  file("/proc/sys/kernel/perf_event_paranoid", 0);
  class = probe(ff, &says);
  check(class == CPUCYCLES_SKIP && has(says, "kernel without perf_event"), "no_paranoid_file_skips",
        "class %lld, says '%s'", class, says);
  /* no rdpmc file (a chroot without /sys, a kernel without the x86 PMU
     driver): RDPMC of the fixed counter would fault, so no perfpmcff */
  machine(INTEL);
  memset(files, 0, sizeof files);
  file("/proc/sys/kernel/perf_event_paranoid", "2\n");
  class = probe(ff, &says);
  check(class == CPUCYCLES_SKIP && has(says, "no /sys/devices/cpu/rdpmc") && still_open() == 0,
        "no_rdpmc_file_skips_perfpmcff", "class %lld, %d open, says '%s'", class, still_open(), says);

}

/* arm64-perfpmc and riscv*-perfrdcycle: perf_user_access gates the open,
   and the page must map (cpucycles_perf_user_counter) */
static unsigned long long fake_rdpmc(unsigned int counter);
static int user_counter(const char *knob, struct cpucycles_probe *said)
{
  struct cpucycles_perf p = { 3, fake_rdpmc, 0, 0, 0 };
  struct cpucycles_perf_thread t;
  int ok;
  machine(AMD);
  page.cap_user_rdpmc = 1;
  page.index = 33; /* the counter the event sits on */
  file("/proc/sys/kernel/perf_user_access", knob);
  memset(said, 0, sizeof *said);
  said->format = vsnprintf;
  memset(&t, 0, sizeof t);
  ok = cpucycles_perf_user_counter(&p, &t, said);
  if (ok) {
    ok = opens == 1 && opened[0].config1 == 3 && opened[0].pinned && still_open() == 1 && mapped == 1 && t.page == &page;
    cpucycles_perf_close(&p, &t);
    ok += still_open() == 0 && mapped == 0; /* 2: accepted, and closing closed it */
  }
  return ok;
}

static void user_access(void)
{
  struct cpucycles_probe said;
  int ok = user_counter("0\n", &said);
  check(!ok && opens == 0 && has(words(&said), "perf_user_access is 0"), "perf_user_access_0_refused",
        "%s after %d opens, says '%s'", ok ? "accepted" : "refused", opens, words(&said));
  ok = user_counter("1\n", &said);
  check(ok == 2, "perf_user_access_1_accepted", "%s (%d opens, %d open, %d maps), says '%s'",
        ok ? "accepted but fds or page wrong" : "refused", opens, still_open(), mapped, words(&said));
  ok = user_counter(0, &said);
  check(ok == 2, "perf_user_access_absent_accepted", "%s (%d opens, %d open, %d maps), says '%s'",
        ok ? "accepted but fds or page wrong" : "refused", opens, still_open(), mapped, words(&said));

  /* the page refusing to map leaves nothing open */
  {
    struct cpucycles_perf p = { 3, fake_rdpmc, 0, 0, 0 };
    struct cpucycles_perf_thread t;
    machine(AMD);
    map_fails = 1;
    memset(&said, 0, sizeof said);
    said.format = vsnprintf;
    memset(&t, 0, sizeof t);
    ok = cpucycles_perf_user_counter(&p, &t, &said);
    check(!ok && opens == 1 && still_open() == 0 && t.slot == 0 && has(words(&said), "mmap"),
          "user_counter_map_failure_closes", "%s after %d opens, %d open, says '%s'",
          ok ? "accepted" : "refused", opens, still_open(), words(&said));
  }

  /* a page that names no counter: user reads are off (arm64 with
     perf_user_access 0 where /proc cannot say so) */
  {
    struct cpucycles_perf p = { 3, fake_rdpmc, 0, 0, 0 };
    struct cpucycles_perf_thread t;
    machine(AMD);
    page.cap_user_rdpmc = 1;
    memset(&said, 0, sizeof said);
    said.format = vsnprintf;
    memset(&t, 0, sizeof t);
    ok = cpucycles_perf_user_counter(&p, &t, &said);
    check(!ok && still_open() == 0 && mapped == 0 && has(words(&said), "index 0"), "user_counter_index_0_skips",
          "%s, %d open, %d mapped, says '%s'", ok ? "accepted" : "refused", still_open(), mapped, words(&said));
  }
}

static void vendors(void)
{
  const char *says;
  long long class;
  if (!ff || !pmc || !pmcff) {
    skip("vendors", "amd64 perf counters not in this build");
    return;
  }
  machine(AMD);
  class = probe(ff, &says);
  check(class == CPUCYCLES_SKIP && has(says, "not an Intel CPU") && opens == 0, "perfpmcff_refuses_amd",
        "class %lld, says '%s'", class, says);
  class = probe(pmcff, &says);
  check(class == CPUCYCLES_SKIP && has(says, "not an Intel CPU"), "pmcff_refuses_amd",
        "class %lld, says '%s'", class, says);
  machine(INTEL);
  class = probe(pmc, &says);
  check(class == CPUCYCLES_SKIP && !strcmp(says, "not an AMD CPU") && opens == 0, "perfpmc_refuses_intel",
        "class %lld, says '%s'", class, says);
}

static void amd(void)
{
  const char *says;
  long long class;
  if (!pmc) { skip("amd", "amd64-perfpmc not in this build"); return; }
  machine(AMD);
  page.cap_user_rdpmc = 1;
  page.index = 0;
  class = probe(pmc, &says);
  check(class == CPUCYCLES_SKIP && has(says, "index 0"), "amd_index_0_skips", "class %lld, says '%s'", class, says);
  check(still_open() == 0 && mapped == 0, "amd_index_0_leaves_nothing_open", "%d fds, %d maps", still_open(), mapped);

  machine(AMD);
  page.cap_user_rdpmc = 0;
  page.index = 3;
  class = probe(pmc, &says);
  check(class == CPUCYCLES_SKIP && has(says, "cap_user_rdpmc 0") && still_open() == 0 && mapped == 0,
        "amd_cap_user_rdpmc_0_skips", "class %lld, %d open, says '%s'", class, still_open(), says);

  machine(AMD);
  map_fails = 1;
  class = probe(pmc, &says);
  check(class == CPUCYCLES_SKIP && has(says, "mmap") && still_open() == 0, "amd_mmap_failure_skips",
        "class %lld, %d open, says '%s'", class, still_open(), says);

  machine(AMD);
  page.cap_user_rdpmc = 1;
  page.index = 3;
  page.pmc_width = 48;
  class = probe(pmc, &says);
  check(class == CPUCYCLES_CYCLECOUNTER && still_open() == 1 && mapped == 1, "amd_index_3_accepted",
        "class %lld, %d open, %d maps, says '%s'", class, still_open(), mapped, says);
  pmc->close();
  check(still_open() == 0 && mapped == 0, "amd_close_unmaps_and_closes", "%d fds, %d maps", still_open(), mapped);
}

/* ---- the page reader, with a fake RDPMC ---- */

static unsigned long long raw_value;
static unsigned int raw_counter;
static int raw_calls;
static int bump_lock_once; /* the kernel updates the page during the read */

static unsigned long long fake_rdpmc(unsigned int counter)
{
  raw_counter = counter;
  ++raw_calls;
  if (bump_lock_once) {
    bump_lock_once = 0;
    page.lock += 2;
    page.offset += 1000000; /* what the update changed */
    return 0xdeadbeef;      /* a value the retry must not use */
  }
  return raw_value;
}

/* A hybrid's page reader on a P-core (the page names the wanted counter)
   after the thread ran on an E-core: the count must hold the E-core
   event's count too, which only read(2) of both fds gives (the page is
   the core event's alone), and never fall below a read before. */
static void hybrid_page_reader(void)
{
  struct cpucycles_perf p = { 0, fake_rdpmc, 0, 0, 0 };
  struct cpucycles_perf_thread t;
  struct cpucycles_probe said;
  long long before, after;
  int ok;
  machine(INTEL);
  file("/sys/bus/event_source/devices/cpu_atom/type", "8\n");
  memset(&said, 0, sizeof said);
  said.format = vsnprintf;
  memset(&t, 0, sizeof t);
  ok = cpucycles_perf_setup(&p, &t, &said);
  page.cap_user_rdpmc = 1;
  page.index = 33; /* the core event sits on counter 32: a P-core */
  page.pmc_width = 48;
  page.offset = counts[FIRST_FD]; /* the core event's count: no E-core cycles */
  raw_value = 0;
  before = cpucycles_perf_ticks(&p, &t, 0x7fffffff, fake_rdpmc); /* on an E-core: read(2) */
  after = cpucycles_perf_ticks(&p, &t, 33, fake_rdpmc);
  check(ok && still_open() == 2 && after >= before && after > counts[FIRST_FD],
        "hybrid_page_read_holds_ecore_count", "setup %d, %d fds; E-core read %lld, then P-core %lld",
        ok, still_open(), before, after);
  check(has(words(&said), "read(2) of both"), "hybrid_page_reader_says_read", "says '%s'",
        words(&said));
  cpucycles_perf_close(&p, &t);
  memset(&page, 0, sizeof page);
}

/* A handler that lands inside a read, after its page and base were
   loaded, and gives the thread a new event: a new page, and a base that
   carries the count on (perf.c's change()). */
static struct perf_event_mmap_page page2;
static struct cpucycles_perf_thread *interrupted;
static int swap_inside;

static unsigned long long swapping_rdpmc(unsigned int counter)
{
  (void) counter;
  if (swap_inside) {
    swap_inside = 0;
    interrupted->page = &page2;
    interrupted->base = 7000000;
  }
  return 0;
}

static void page_swapped_inside_a_read(void)
{
  static struct cpucycles_perf reader = { 0, swapping_rdpmc, 0, 0, 0 };
  struct cpucycles_perf_thread t;
  long long got;
  memset(&t, 0, sizeof t);
  memset(&page2, 0, sizeof page2);
  page.cap_user_rdpmc = page2.cap_user_rdpmc = 1;
  page.index = page2.index = 3;
  page.pmc_width = page2.pmc_width = 48;
  page.offset = 6000000;   /* the old event: its count since base 0 */
  page2.offset = 10;       /* the new event, just opened */
  t.page = &page;
  t.pid = *cpucycles_perf_pid; /* events of this process */
  interrupted = &t;
  swap_inside = 1;
  got = cpucycles_perf_ticks(&reader, &t, 0, swapping_rdpmc);
  check(got == 7000010, "page_read_interrupted_by_a_new_event_reads_again",
        "got %lld, want 7000010 (6000000: the old page with the old base, below the handler's count)", got);
}

/* A handler that lands while its thread gives up a page reader's event,
   right after the thread's last read of the old page (which read the
   counter before the handler ran): the handler reads the page again and
   is handed more.  Neither it nor any later count may fall below that. */
static struct cpucycles_perf giving_reader = { 3, 0, 0, 0, 0 };
static int handler_armed;
static long long handler_got;

static unsigned long long late_rdpmc(unsigned int counter)
{
  unsigned long long sampled = raw_value; /* the instruction's value, before the handler */
  (void) counter;
  if (handler_armed) {
    handler_armed = 0;
    raw_value += 1000000000;
    handler_got = cpucycles_perf_ticks(&giving_reader, interrupted, 0, late_rdpmc);
  }
  return sampled;
}

static void handler_inside_giving_up(void)
{
  struct cpucycles_perf_thread t;
  struct cpucycles_probe said;
  long long first, got;
  int fd;
  machine(AMD);
  page.cap_user_rdpmc = 1;
  page.index = 33;
  page.pmc_width = 64;
  page.offset = 5000;
  file("/proc/sys/kernel/perf_user_access", "1\n");
  memset(&said, 0, sizeof said);
  memset(&t, 0, sizeof t);
  giving_reader.rdpmc = late_rdpmc;
  raw_value = 1000;
  if (!cpucycles_perf_user_counter(&giving_reader, &t, &said)) {
    check(0, "handler_inside_giving_up_never_back", "the page reader did not set up: %s", said.words);
    return;
  }
  first = cpucycles_perf_ticks(&giving_reader, &t, 33, late_rdpmc);
  /* the event moves to another counter and its fd is taken: the next
     read gives it up and opens another */
  page.index = 34;
  for (fd = FIRST_FD; fd < FIRST_FD + CALLS; ++fd) is_open[fd] = 0;
  raw_value = 2000;
  interrupted = &t;
  handler_armed = 1;
  got = cpucycles_perf_ticks(&giving_reader, &t, 33, late_rdpmc);
  check(!handler_armed && handler_got >= 5000 + 1000002000LL && got >= handler_got && first == 6000,
        "handler_inside_giving_up_never_back",
        "first %lld, the handler got %lld (want at least %lld), then the thread got %lld", first, handler_got,
        5000 + 1000002000LL, got);
  cpucycles_perf_close(&giving_reader, &t);
}

static long long page_read(const struct perf_event_mmap_page *pc)
{
  long long count = -1;
  if (!cpucycles_perf_page_count(pc, 0, fake_rdpmc, &count)) return -1;
  return count;
}

static void page_reader(void)
{
  long long got, want;
  memset(&page, 0, sizeof page);
  page.cap_user_rdpmc = 1;
  page.index = 3;
  page.pmc_width = 48;
  page.offset = 5000000;

  raw_value = 0xfffffffff000ULL; /* 48 bits: -4096, a counter that started below zero */
  raw_calls = 0;
  got = page_read(&page);
  check(got == 5000000 - 4096 && raw_counter == 2 && raw_calls == 1, "rdpmc_sign_extends_from_pmc_width",
        "got %lld from counter %u in %d reads, want %lld from counter 2", got, raw_counter, raw_calls,
        5000000LL - 4096);

  raw_value = 0x7fffffffffffULL; /* the largest positive 48-bit value */
  got = page_read(&page);
  check(got == 5000000 + 0x7fffffffffffLL, "rdpmc_positive_stays_positive", "got %lld", got);

  /* perf starts a counter below zero; running on through zero is six
     more cycles, not 2^48 fewer */
  raw_value = 0xffffffffffffULL; /* -1 */
  want = page_read(&page);
  raw_value = 5; /* the counter ran on through zero */
  got = page_read(&page);
  check(got == want + 6, "rdpmc_wrap_counts_on", "before %lld after %lld", want, got);

  page.offset = 5000000;
  raw_value = 100;
  raw_calls = 0;
  bump_lock_once = 1;
  got = page_read(&page);
  check(got == 6000000 + 100 && raw_calls == 2, "seqlock_change_retries", "got %lld in %d reads, want %lld in 2",
        got, raw_calls, 6000000LL + 100);

  page.index = 0;
  raw_calls = 0;
  got = page_read(&page);
  check(got == -1 && raw_calls == 0, "index_0_gives_no_count", "got %lld in %d reads", got, raw_calls);
  page.index = 3;
  check(!cpucycles_perf_page_count(&page, 4, fake_rdpmc, &got) && raw_calls == 0, "other_counter_gives_no_count",
        "the page's count of counter 3 was taken for counter 4");
}

/* The exclude_kernel/exclude_hv fallbacks, through the cycles open every
   perf counter uses.  Last of all: after ENOENT the cycles event stays
   missing for the rest of the process. */
static int open_cycles(struct cpucycles_probe *said)
{
  struct cpucycles_perf p = { 0, 0, 0, 0, 0 };
  struct cpucycles_perf_thread t;
  int ok, fds;
  memset(said, 0, sizeof *said);
  said->format = vsnprintf;
  memset(&t, 0, sizeof t);
  ok = cpucycles_perf_setup(&p, &t, said);
  fds = still_open();
  if (ok) cpucycles_perf_close(&p, &t);
  return ok ? fds : -1;
}

static void open_fallbacks(void)
{
  struct cpucycles_probe said;
  int fds;
  machine(AMD);
  refuse_kernel = 1;
  fds = open_cycles(&said);
  check(fds == 1 && opens == 3 && !opened[2].exclude_kernel && opened[2].exclude_hv,
        "exclude_kernel_eacces_falls_back", "%d fds after %d calls", fds, opens);
  check(opened[0].exclude_kernel && opened[0].exclude_hv, "exclusion_tried_first", "first call %d %d",
        opened[0].exclude_kernel, opened[0].exclude_hv);
  check(still_open() == 0, "exclude_fallback_closed", "%d open", still_open());

  machine(AMD);
  open_errno = EACCES;
  fds = open_cycles(&said);
  check(fds < 0 && opens == 4 && has(words(&said), "EACCES") && still_open() == 0, "eacces_everywhere_tries_all_four",
        "%d fds after %d calls, says '%s'", fds, opens, words(&said));

  machine(AMD);
  open_errno = ENOENT;
  fds = open_cycles(&said);
  check(fds < 0 && opens == 1, "enoent_stops_at_once", "%d fds after %d calls", fds, opens);

  if (pe) {
    const char *says;
    long long class;
    machine(AMD);
    open_errno = ENOENT;
    class = probe(pe, &says);
    check(class == CPUCYCLES_SKIP && has(says, "ENOENT") && still_open() == 0, "perfevent_enoent_says_why",
          "class %lld, says '%s'", class, says);
  }
}

int main(void)
{
  fake_os.read_text = fake_read_text;
  fake_os.cpuid = fake_cpuid;
  fake_os.perf_event_open = fake_perf_event_open;
  fake_os.read_fd = fake_read_fd;
  fake_os.ioctl_fd = fake_ioctl_fd;
  fake_os.close_fd = fake_close_fd;
  fake_os.perf_owned = fake_perf_owned;
  fake_os.map_page = fake_map_page;
  fake_os.unmap_page = fake_unmap_page;
  ff = counter("amd64-perfpmcff");
  pmc = counter("amd64-perfpmc");
  pmcff = counter("amd64-pmcff");
  pe = counter("default-perfevent");

  intel_hybrid();
  hybrid_perfevent();
  user_access();
  perfevent_toggle();
  old_intel();
  knobs();
  vendors();
  amd();
  page_reader();
  hybrid_page_reader();
  page_swapped_inside_a_read();
  handler_inside_giving_up();
  open_fallbacks(); /* last: leaves the cycles event missing */
  return checks_failed();
}
#endif
