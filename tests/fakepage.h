/* A page reader on the fake OS, for the tests of the per-thread perf
   events (tests/unit/perf-hostile.c, tests/unit/perf-wedge.c): the event
   is tests/fakeos.c's task clock, and its page a real mapping of this
   file's.  Include after perf.h, fakeos.h and the system headers. */
#ifndef CPUCYCLES_TEST_FAKEPAGE_H
#define CPUCYCLES_TEST_FAKEPAGE_H

/* A counter that reads through its event's page, as arm64-perfpmc and
   riscv*-perfrdcycle do, on a fake page: the library maps it with
   cpucycles_os_map_page and gives it back with cpucycles_os_unmap_page,
   both hooked here.  The page names a private copy of the event's fd as
   its counter, which the fake rdpmc reads (the task clock, exactly what
   read(2) of the event gives: the two paths agree), so the page keeps
   counting after the library closes its fd, as a kernel's page does.  A
   read of a page the library unmapped is a SIGSEGV: the fake pages are
   real mappings, unmapped for real. */
#define FAKE_PAGES 1024
#define PAGES_MOST 256 /* perf.c's table: a page holds a slot until reaped */
static struct {
  void *page;
  int fd;
} fake_pages[FAKE_PAGES];
static volatile int pages_live;
static int page_index_zero; /* the pages say: on no counter (an event in error) */

static unsigned long long fake_rdpmc(unsigned int counter)
{
  unsigned long long got[2] = { 0, 0 }; /* value, id (PERF_FORMAT_ID) */
  real_read_fd((int) counter, got, sizeof got);
  return got[0];
}

static struct cpucycles_perf paged = { 0, fake_rdpmc, 0, 0, 0 };
static __thread struct cpucycles_perf_thread paged_mine;

static long long paged_ticks(void)
{
  return cpucycles_perf_ticks(&paged, &paged_mine, 0, fake_rdpmc);
}

static void fake_forget_page(void *page);

/* Async-signal-safe: a handler's call may open a thread's events.  Over
   at, the new page takes the old one's place in one step, as perf's do. */
static void *fake_map_page(int fd, void *at)
{
  size_t size = (size_t) sysconf(_SC_PAGESIZE);
  struct perf_event_mmap_page *p;
  int own = fcntl(fd, F_DUPFD_CLOEXEC, 3), i;
  if (own < 0) return 0;
  if (at) fake_forget_page(at);
  p = mmap(at, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | (at ? MAP_FIXED : 0), -1, 0);
  if (p == MAP_FAILED) {
    close(own);
    return 0;
  }
  madvise(p, size, MADV_DONTFORK); /* as perf's pages: a forked child has none */
  p->cap_user_rdpmc = 1;
  p->index = page_index_zero ? 0 : (unsigned int) own + 1;
  p->pmc_width = 64;
  p->offset = 0;
  for (i = 0; i < FAKE_PAGES; ++i) {
    void *none = 0;
    if (__atomic_compare_exchange_n(&fake_pages[i].page, &none, (void *) p, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
      fake_pages[i].fd = own;
      break;
    }
  }
  __atomic_add_fetch(&pages_live, 1, __ATOMIC_RELAXED);
  return p;
}

/* The bookkeeping of a fake page, not its mapping. */
static void fake_forget_page(void *page)
{
  int i;
  for (i = 0; i < FAKE_PAGES; ++i)
    if (__atomic_load_n(&fake_pages[i].page, __ATOMIC_ACQUIRE) == page) {
      close(fake_pages[i].fd);
      __atomic_store_n(&fake_pages[i].page, (void *) 0, __ATOMIC_RELEASE);
      __atomic_sub_fetch(&pages_live, 1, __ATOMIC_RELAXED);
      break;
    }
}

static void fake_unmap_page(void *page)
{
  int i;
  for (i = 0; i < FAKE_PAGES; ++i)
    if (__atomic_load_n(&fake_pages[i].page, __ATOMIC_ACQUIRE) == page) {
      close(fake_pages[i].fd);
      __atomic_store_n(&fake_pages[i].page, (void *) 0, __ATOMIC_RELEASE);
      break;
    }
  munmap(page, (size_t) sysconf(_SC_PAGESIZE));
  __atomic_sub_fetch(&pages_live, 1, __ATOMIC_RELAXED);
}

/* In a child: the parent's pages did not come along (MADV_DONTFORK), and
   the library forgot them without unmapping; their fds did come. */
static void forget_parents_pages(void)
{
  int i;
  for (i = 0; i < FAKE_PAGES; ++i)
    if (fake_pages[i].page) {
      close(fake_pages[i].fd);
      fake_pages[i].page = 0;
    }
  pages_live = 0;
}

/* The page reader set up over the fake (once): 1 if it reads. */
static int page_reader(void)
{
  static int state; /* 0 not tried, 1 set up, -1 refused */
  struct cpucycles_probe probe;
  if (!state) {
    memset(&probe, 0, sizeof probe);
    fake_os.map_page = fake_map_page;
    fake_os.unmap_page = fake_unmap_page;
    state = cpucycles_perf_setup(&paged, &paged_mine, &probe) && paged_mine.page ? 1 : -1;
  }
  return state > 0;
}

#endif
