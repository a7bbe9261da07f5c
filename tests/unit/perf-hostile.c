/* Issue 32's hostile programs against the per-thread perf events, rows
   1, 2, 5, 6, 7 and 8 (row 9, keys used up before loading, is
   tests/integration/perf-hostile-keys.sh).  default-perfevent is chosen
   alone over the fake that swaps the cycles event for the thread's task
   clock (tests/fakeos.c), so its read(2) path really opens, reads and
   closes perf fds on a machine without a PMU.  Row 1 runs through a page
   reader too (a fake page, really mapped and unmapped), and every row
   again on a hybrid Intel (two events a thread).  Each scenario runs in a
   child of its own under a watchdog: a hang is killed and fails, as does
   a crash; the perf fds it leaves are its own.  Nothing here times the
   library: the asserts are fd counts, the program's data left intact,
   calls that return, and counts that never go back within a thread.
   test: long (thousands of thread lifetimes under timer signals). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include "check.h"
#include "internal.h"
#include "fakeos.h"
#include "perf-fds.h"

#ifndef __linux__
int main(void)
{
  skip("perf_hostile", "perf_event is Linux only");
  return 0;
}
#else
#include <sched.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include "perf.h"

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid /* glibc before 2.35 names no field */
#endif

static long long (*read_count)(void);
static void (*perfevent_close)(void); /* gives back every thread's default-perfevent events */
static int emulated;

/* qemu-user: loops cut tenfold */
static long scaled(long n)
{
  return emulated && n >= 10 ? n / 10 : n;
}

static void sleep_us(long us)
{
  struct timespec t;
  t.tv_sec = us / 1000000;
  t.tv_nsec = us % 1000000 * 1000;
  while (nanosleep(&t, &t) != 0 && errno == EINTR) continue;
}

static long long now_ms(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000LL + t.tv_nsec / 1000000;
}

/* ---- check names ---- */

/* "" or "hybrid_": the runs with an E-core twin of every event, where
   each thread holds per_thread fds */
static const char *variant = "";
static int per_thread = 1;

/* name, "hostile_" and then the variant's prefix: valid until the fourth
   call after */
static const char *named(const char *name)
{
  static char text[4][96];
  static int k;
  k = (k + 1) % 4;
  snprintf(text[k], sizeof text[k], "hostile_%s%s", variant, name + strlen("hostile_"));
  return text[k];
}

/* ---- in a child, under a watchdog ---- */

/* Runs scenario in a forked child (which prints its own checks and exits
   with checks_failed()); a child that runs past limit seconds is killed.
   Either a hang or a death by a signal is a failure named name. */
static void in_child(const char *name, void (*scenario)(void), int limit)
{
  long long deadline = now_ms() + limit * 1000LL;
  int status;
  pid_t pid, got;
  fflush(stdout);
  pid = fork();
  if (pid == 0) {
    scenario();
    fflush(stdout);
    _exit(checks_failed());
  }
  if (pid < 0) {
    check(0, name, "fork failed");
    return;
  }
  while ((got = waitpid(pid, &status, WNOHANG)) == 0 && now_ms() < deadline) sleep_us(10000);
  if (got == 0) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    check(0, name, "hung: still running after %d s, killed", limit);
  } else if (got < 0) {
    check(0, name, "waitpid failed");
  } else if (WIFSIGNALED(status)) {
    check(0, name, "died by signal %d", WTERMSIG(status));
  } else {
    check(1, name, "");
    if (WEXITSTATUS(status)) ++check_failures; /* the child said which */
  }
}

/* ---- counts that never go back, seen from threads and handlers ---- */

/* The highest count this thread was handed, by its own code or a handler
   in it.  A call made after it was handed must give at least as much;
   a handler may interrupt the update below, which only makes the check
   weaker, never wrong (seen always holds some count handed earlier). */
static __thread long long seen;
static volatile int backwards, handler_calls;

static long long note_count(void)
{
  long long before = seen, c = read_count();
  if (c < before) __atomic_add_fetch(&backwards, 1, __ATOMIC_RELAXED);
  if (c > seen) seen = c;
  return c;
}

static void counting_handler(int sig)
{
  int saved = errno;
  (void) sig;
  note_count();
  __atomic_add_fetch(&handler_calls, 1, __ATOMIC_RELAXED);
  errno = saved;
}

static void handle(int sig)
{
  struct sigaction a;
  memset(&a, 0, sizeof a);
  a.sa_handler = counting_handler;
  a.sa_flags = SA_RESTART;
  sigemptyset(&a.sa_mask);
  sigaction(sig, &a, 0);
}

/* Perf fds counted without /proc: every open fd the perf ioctl accepts
   (the library's own test for its fds). */
static int perf_fds_by_ioctl(void)
{
  long limit = sysconf(_SC_OPEN_MAX), fd;
  int n = 0;
  if (limit < 0 || limit > 1 << 20) limit = 1 << 20;
  for (fd = 0; fd < limit; ++fd) {
    unsigned long long id;
    if (fcntl((int) fd, F_GETFD) != -1 && ioctl((int) fd, PERF_EVENT_IOC_ID, &id) == 0) ++n;
  }
  return n;
}

/* The lowest fd number that is a perf event; -1 if none. */
static int lowest_perf_fd(void)
{
  long limit = sysconf(_SC_OPEN_MAX), fd;
  if (limit < 0 || limit > 1 << 20) limit = 1 << 20;
  for (fd = 0; fd < limit; ++fd) {
    unsigned long long id;
    if (fcntl((int) fd, F_GETFD) != -1 && ioctl((int) fd, PERF_EVENT_IOC_ID, &id) == 0) return (int) fd;
  }
  return -1;
}

#include "fakepage.h"

static volatile int unpaged;
static int paging; /* row 1 reads through the page reader */

/* ---- row 1: threads start and end under a timer handler ---- */

enum timer_kind { ITIMER_REAL_PROCESS, ITIMER_PROF_PROCESS, TIMER_THREAD_ID };
static enum timer_kind kind;
static long period_us, thread_reads;
static const char *timer_name;

#define WAVE 8   /* threads alive at once */
#define WAVES 40 /* so 320 thread lifetimes: more than perf.c's table holds */
#define HANDLER_WAIT_MS 5000

/* A second timer in each thread, on another signal at 1.5 times the
   period: either handler may interrupt the other (never itself, or the
   frames would pile up wherever a signal's delivery takes longer than
   its period). */
static int nested;

static int thread_timer(timer_t *id, int sig, long us)
{
  struct sigevent ev;
  struct itimerspec it;
  memset(&ev, 0, sizeof ev);
  ev.sigev_notify = SIGEV_THREAD_ID;
  ev.sigev_signo = sig;
  ev.sigev_notify_thread_id = (pid_t) syscall(SYS_gettid);
  if (timer_create(CLOCK_MONOTONIC, &ev, id) != 0) return 0;
  it.it_interval.tv_sec = it.it_value.tv_sec = 0;
  it.it_interval.tv_nsec = it.it_value.tv_nsec = us * 1000;
  timer_settime(*id, 0, &it, 0);
  return 1;
}

struct lifetime {
  int last; /* of the last wave: past the table's size, so its pages are recycled ones */
  timer_t timer, other;
  int timed, timed_other; /* its own timers were made: the main thread deletes them after the join */
};

/* A thread's life: its own timer (armed before its first read, left
   running through its exit), then reads. */
static void *short_life(void *arg)
{
  struct lifetime *l = arg;
  int i;
  l->timed = kind == TIMER_THREAD_ID && thread_timer(&l->timer, SIGPROF, period_us);
  l->timed_other = kind == TIMER_THREAD_ID && nested && thread_timer(&l->other, SIGALRM, period_us * 3 / 2);
  for (i = 0; i < scaled(thread_reads); ++i) note_count();
  if (paging && l->last && !paged_mine.page) __atomic_add_fetch(&unpaged, 1, __ATOMIC_RELAXED);
  return 0;
}

static void process_timer(long us)
{
  struct itimerval it;
  it.it_interval.tv_sec = it.it_value.tv_sec = us / 1000000;
  it.it_interval.tv_usec = it.it_value.tv_usec = us % 1000000; /* 0: disarmed */
  setitimer(kind == ITIMER_REAL_PROCESS ? ITIMER_REAL : ITIMER_PROF, &it, 0);
}

static void timer_lifetimes(void)
{
  struct lifetime life[WAVE];
  pthread_t t[WAVE];
  char name[96];
  int wave, i, fds, created = 0;
  long waves = scaled(WAVES), start = (long) now_ms();
  forget_parents_pages();
  handle(kind == ITIMER_REAL_PROCESS ? SIGALRM : SIGPROF);
  if (nested) handle(SIGALRM);
  note_count(); /* this thread's own event, reopened in this child */
  if (kind == TIMER_THREAD_ID) {
    struct lifetime probe;
    if (!thread_timer(&probe.timer, SIGPROF, period_us)) {
      snprintf(name, sizeof name, "hostile_%stimer_%s", variant, timer_name);
      skip(name, "timer_create(SIGEV_THREAD_ID) refused here");
      return;
    }
    timer_delete(probe.timer);
  } else {
    process_timer(period_us);
  }
  /* past the waves, more until the handler has run a few times (a slow
     emulator, a busy host), for at most HANDLER_WAIT_MS */
  for (wave = 0; wave < waves || (handler_calls < 3 && now_ms() - start < HANDLER_WAIT_MS); ++wave) {
    for (i = 0; i < WAVE; ++i) {
      life[i].timed = life[i].timed_other = 0;
      life[i].last = wave >= waves - 1;
      if (pthread_create(&t[i], 0, short_life, &life[i]) == 0)
        ++created;
      else
        t[i] = pthread_self();
    }
    for (i = 0; i < WAVE; ++i) {
      if (!pthread_equal(t[i], pthread_self())) pthread_join(t[i], 0);
      if (life[i].timed) timer_delete(life[i].timer);
      if (life[i].timed_other) timer_delete(life[i].other);
    }
  }
  if (kind != TIMER_THREAD_ID) process_timer(0);
  fds = perf_fds() - pages_live; /* each fake page keeps an fd of its own */
  printf("info hostile_timer_%s: %d thread lifetimes of %ld reads, %d handler calls, %ld ms, %d pages mapped\n",
         timer_name, created, scaled(thread_reads), handler_calls, (long) now_ms() - start, pages_live);
  if (paging) {
    snprintf(name, sizeof name, "hostile_%stimer_%s_pages_recycled", variant, timer_name);
    check(pages_live <= PAGES_MOST && !unpaged, name,
          "%d pages still mapped after %d thread lifetimes (want at most %d); %d threads of the last wave had none",
          pages_live, created, PAGES_MOST, unpaged);
  }
  snprintf(name, sizeof name, "hostile_%stimer_%s_no_perf_fd_leak", variant, timer_name);
  check(fds >= 0 && fds <= per_thread, name, "%d perf fds after %d thread lifetimes joined (want this thread's %d at most)",
        fds, created, per_thread);
  snprintf(name, sizeof name, "hostile_%stimer_%s_never_backwards", variant, timer_name);
  check(!backwards, name, "%d counts below one handed out before in the same thread (%d handler calls)", backwards,
        handler_calls);
  snprintf(name, sizeof name, "hostile_%stimer_%s_handler_ran", variant, timer_name);
  check(handler_calls > 0, name, "the timer handler never ran in %d thread lifetimes", created);
}

/* all 0: only one case of the default reader */
static void timers(int all)
{
  static const struct {
    enum timer_kind kind;
    long us, reads; /* the period, and each thread's reads: its life spans a few periods */
    const char *name;
  } cases[] = {
    { TIMER_THREAD_ID, 200, 300, "thread_200us" },
    { ITIMER_REAL_PROCESS, 10000, 1500, "real_100hz" },
    { ITIMER_PROF_PROCESS, 1000, 1000, "prof_1ms" },
    { TIMER_THREAD_ID, 20, 30, "thread_20us" },
    { TIMER_THREAD_ID, 30, 30, "thread_30us_nested" }, /* and 45 us on another signal */
    { ITIMER_PROF_PROCESS, 20, 300, "prof_20us" },
    { ITIMER_PROF_PROCESS, 1000, 1000, "page_prof_1ms" },
    { TIMER_THREAD_ID, 200, 300, "page_thread_200us" },
    { TIMER_THREAD_ID, 20, 30, "page_thread_20us" },
  };
  unsigned int i;
  long long (*read_perfevent)(void) = read_count;
  for (i = 0; i < (all ? sizeof cases / sizeof cases[0] : 1); ++i) {
    char name[96];
    paging = !strncmp(cases[i].name, "page_", 5);
    if (paging && !page_reader()) {
      skip(named("hostile_timer_page"), "the fake page reader did not set up");
      break;
    }
    read_count = paging ? paged_ticks : read_perfevent;
    nested = strstr(cases[i].name, "_nested") != 0;
    kind = cases[i].kind;
    period_us = cases[i].us;
    thread_reads = cases[i].reads;
    timer_name = cases[i].name;
    snprintf(name, sizeof name, "hostile_%stimer_%s", variant, timer_name);
    in_child(name, timer_lifetimes, 30);
  }
  read_count = read_perfevent;
  nested = 0;
  if (page_reader()) cpucycles_perf_close(&paged, &paged_mine);
  fake_os.map_page = 0; /* the real ones again: a fake page would send a real RDPMC astray */
  fake_os.unmap_page = 0;
}

/* ---- row 2: close_range now and then under a 100 Hz handler ---- */

static volatile int stop_reading;
static volatile long reads_done;

static void *reader(void *unused)
{
  (void) unused;
  while (!stop_reading) {
    note_count();
    __atomic_add_fetch(&reads_done, 1, __ATOMIC_RELAXED);
  }
  return 0;
}

static void close_from(int low)
{
#ifdef SYS_close_range
  if (syscall(SYS_close_range, (unsigned int) low, ~0U, 0) == 0) return;
#endif
  {
    long fd, limit = sysconf(_SC_OPEN_MAX);
    if (limit < 0 || limit > 1 << 20) limit = 1 << 20;
    for (fd = low; fd < limit; ++fd) close((int) fd);
  }
}

#define CLOSES_MS 1000 /* how long the program goes on closing */
#define STALL_MS 5000  /* a reader that makes no progress for this long is stuck */

/* The handler is kept off this thread, so that every tick lands in the
   reader, which reopens its event after every close. */
static void close_range_reader(void)
{
  struct itimerval it = { { 0, 10000 }, { 0, 10000 } }, off = { { 0, 0 }, { 0, 0 } };
  pthread_t t;
  sigset_t alrm;
  int low, stuck = -1, fds;
  long closes = 0;
  long long end;
  handle(SIGALRM);
  note_count();
  if (pthread_create(&t, 0, reader, 0) != 0) {
    check(0, named("hostile_close_range_reads_go_on"), "no reader thread");
    return;
  }
  sigemptyset(&alrm);
  sigaddset(&alrm, SIGALRM);
  pthread_sigmask(SIG_BLOCK, &alrm, 0);
  while (reads_done < 10) sleep_us(1000);
  low = lowest_perf_fd(); /* the library's first fd: 768 with a limit of 1024 or more */
  if (low < 3) low = 768;
  setitimer(ITIMER_REAL, &it, 0);
  end = now_ms() + scaled(CLOSES_MS);
  while (now_ms() < end && stuck < 0) {
    long before = reads_done;
    long long deadline;
    close_from(low);
    ++closes;
    deadline = now_ms() + STALL_MS;
    while (reads_done < before + 10 && now_ms() < deadline) sleep_us(200);
    if (reads_done < before + 10) stuck = closes;
  }
  stop_reading = 1;
  pthread_join(t, 0);
  setitimer(ITIMER_REAL, &off, 0);
  fds = perf_fds();
  printf("info hostile_close_range: %ld closes, %ld reads, %d handler calls\n", closes, reads_done, handler_calls);
  check(stuck < 0, named("hostile_close_range_reads_go_on"), "the reader stopped after close_range(%d, ~0U) number %ld", low,
        stuck);
  check(!backwards, named("hostile_close_range_never_backwards"), "%d counts below one handed out before (%d handler calls)",
        backwards, handler_calls);
  check(fds >= 0 && fds <= 2 * per_thread, named("hostile_close_range_no_perf_fd_leak"),
        "%d perf fds after %ld close_range calls (want at most the two threads' own, %d)", fds, closes, 2 * per_thread);
}

/* ---- row 5: no /proc ---- */

static long no_proc_read_text(const char *path, long offset, char *buf, size_t size)
{
  if (!strncmp(path, "/proc", 5)) {
    if (size) buf[0] = 0;
    return -1;
  }
  return real_read_text(path, offset, buf, size);
}

static void *read_once(void *unused)
{
  (void) unused;
  note_count();
  return 0;
}

/* Hides /proc for real: a chroot into an empty directory (as root, or in
   a new user namespace).  Returns whether it did. */
static int hide_proc(const char *dir)
{
  if (getuid() != 0 && unshare(CLONE_NEWUSER) != 0) return 0;
  return chroot(dir) == 0 && chdir("/") == 0 && access("/proc/self/fd", F_OK) != 0;
}

static char empty_dir[64];

static void no_proc(void)
{
  pthread_t t[50];
  int before, after, i, hidden;
  long created = 0, total = scaled(300);
  fake_os.read_text = no_proc_read_text;
  note_count();
  before = perf_fds_by_ioctl();
  hidden = empty_dir[0] && hide_proc(empty_dir);
  while (created < total) {
    for (i = 0; i < 50 && created < total; ++i, ++created)
      if (pthread_create(&t[i], 0, read_once, 0) != 0) break;
    if (!i) break;
    while (i-- > 0) pthread_join(t[i], 0);
  }
  after = perf_fds_by_ioctl();
  if (!hidden) skip(named("hostile_no_proc_chroot"), "cannot chroot here (not root, no user namespace): /proc only hidden from read_text");
  check(after == before && created > 0, named("hostile_no_proc_threads_release"),
        "%d perf fds before, %d after %ld threads each read once with %s", before, after, created,
        hidden ? "no /proc (chroot)" : "/proc refused to read_text");
  check(!backwards, named("hostile_no_proc_never_backwards"), "%d counts went back", backwards);
}

/* The first call's selection over every counter of the build, without
   /proc: the losers' events given back, the winner's (if a perf counter)
   this thread's only. */
static void no_proc_selection(void)
{
  static struct cpucycles_selection all;
  const char *winner;
  int before, after, most, hidden;
  fake_os.read_text = no_proc_read_text;
  perfevent_close();
  before = perf_fds_by_ioctl();
  hidden = empty_dir[0] && hide_proc(empty_dir);
  cpucycles_select(cpucycles_counters, cpucycles_counter_count, vsnprintf, &all);
  all.read();
  after = perf_fds_by_ioctl();
  winner = cpucycles_counters[all.chosen].name;
  most = strstr(winner, "perf") ? per_thread : 0;
  check(before == 0 && after <= most, named("hostile_no_proc_selection_releases"),
        "%d perf fds before, %d after the selection chose %s with %s (want at most %d)", before, after, winner,
        hidden ? "no /proc (chroot)" : "/proc refused to read_text", most);
}

/* ---- row 6: 900 threads alive under ulimit -n 1024 ---- */

static pthread_barrier_t all_alive, checked;
static volatile int moved_not, went_back;

static volatile long spin;

static void *connection(void *unused)
{
  long long a, b, c;
  long i;
  (void) unused;
  a = read_count();
  for (i = 0; i < 20000; ++i) spin += i;
  b = read_count();
  pthread_barrier_wait(&all_alive);
  pthread_barrier_wait(&checked);
  for (i = 0; i < 20000; ++i) spin += i;
  c = read_count();
  if (b < a || c < b) __atomic_add_fetch(&went_back, 1, __ATOMIC_RELAXED);
  if (c <= a) __atomic_add_fetch(&moved_not, 1, __ATOMIC_RELAXED);
  return 0;
}

static void many_connections(void)
{
  static pthread_t t[900];
  struct rlimit r;
  pthread_attr_t attr;
  long limit = emulated ? 128 : 1024, n = emulated ? 90 : 900, created = 0, i;
  int fds, spare = 0, fd;
  int *mine;
  if (getrlimit(RLIMIT_NOFILE, &r) != 0 || (r.rlim_max != RLIM_INFINITY && r.rlim_max < (rlim_t) limit)) {
    skip(named("hostile_fd_budget"), "the hard fd limit is below the test's soft limit");
    return;
  }
  r.rlim_cur = (rlim_t) limit;
  setrlimit(RLIMIT_NOFILE, &r);
  note_count();
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 256 * 1024);
  pthread_barrier_init(&all_alive, 0, (unsigned int) n + 1);
  pthread_barrier_init(&checked, 0, (unsigned int) n + 1);
  for (i = 0; i < n; ++i) {
    if (pthread_create(&t[i], &attr, connection, 0) != 0) break;
    ++created;
  }
  if (created < n) {
    /* the barriers wait for n: let the ones made through with stand-ins */
    skip(named("hostile_fd_budget"), "cannot create that many threads here");
    _exit(0);
  }
  pthread_barrier_wait(&all_alive);
  fds = perf_fds();
  mine = malloc(sizeof *mine * (size_t) limit);
  while (mine && spare < limit && (fd = open("/dev/null", O_RDONLY)) >= 0) mine[spare++] = fd;
  for (i = 0; i < spare; ++i) close(mine[i]);
  free(mine);
  pthread_barrier_wait(&checked);
  for (i = 0; i < n; ++i) pthread_join(t[i], 0);
  check(fds >= 0 && fds <= limit / 4, named("hostile_fd_budget_quarter"),
        "%d perf fds held with %ld threads alive under an fd limit of %ld (want at most a quarter)", fds, n, limit);
  check(spare >= limit / 2, named("hostile_fd_budget_program_can_open"),
        "the program could open only %d fds with %ld counting threads alive (limit %ld, want at least half)", spare, n,
        limit);
  check(!went_back && !moved_not, named("hostile_fd_budget_every_thread_counts"),
        "%d threads' counts went back, %d did not move (past the budget: time at the setup's rate)", went_back,
        moved_not);
}

/* ---- row 7: the program's pipe or eventfd takes the library's fd ---- */

static const char *stage = "";

static void watchdog(int sig)
{
  char line[160];
  int n;
  (void) sig;
  n = snprintf(line, sizeof line, "fail hostile_%sfd_taken_%s_returns: cpucycles() blocked on the program's fd\n", variant,
               stage);
  if (write(1, line, (size_t) n) < 0) _exit(2);
  _exit(1);
}

static void *read_thrice(void *unused)
{
  (void) unused;
  note_count();
  note_count();
  note_count();
  return 0;
}

/* Closes every fd from 3 on, as a daemon does, and fills the numbers
   below the library's current fd: the next fd the program opens gets
   the library's number.  Returns that number, or -1. */
static int before_library_fd(void)
{
  int fd, lib;
  note_count();
  lib = lowest_perf_fd();
  if (lib < 4) return -1;
  close_from(3);
  while ((fd = open("/dev/null", O_RDONLY)) >= 0 && fd < lib - 1) continue;
  return fd == lib - 1 ? lib : -1;
}

/* A few reads from this thread and from a new one. */
static void calls_meanwhile(void)
{
  pthread_t t;
  alarm(10);
  note_count();
  note_count();
  note_count();
  if (pthread_create(&t, 0, read_thrice, 0) == 0) pthread_join(t, 0);
  note_count();
  alarm(0);
}

static void fd_taken(void)
{
  int lib, p[2], e;
  char got[32];
  uint64_t value = 0;
  signal(SIGALRM, watchdog);

  stage = "pipe";
  lib = before_library_fd();
  if (lib < 0 || pipe(p) != 0 || p[0] != lib || write(p[1], "SECRETPASSWORD!!", 16) != 16) {
    check(0, named("hostile_fd_taken_pipe_data_intact"), "could not put a pipe at the library's fd %d", lib);
  } else {
    calls_meanwhile();
    fcntl(p[0], F_SETFL, O_NONBLOCK);
    check(read(p[0], got, sizeof got) == 16 && !memcmp(got, "SECRETPASSWORD!!", 16) && read(p[0], got, 1) < 0,
          named("hostile_fd_taken_pipe_data_intact"), "the pipe at %d lost or gained bytes", lib);
  }

  stage = "eventfd";
  lib = before_library_fd();
  value = 5;
  if (lib < 0 || (e = eventfd(0, EFD_NONBLOCK)) != lib || write(e, &value, sizeof value) != sizeof value) {
    check(0, named("hostile_fd_taken_eventfd_count_intact"), "could not put an eventfd at the library's fd %d", lib);
  } else {
    calls_meanwhile();
    value = 0;
    check(read(e, &value, sizeof value) == sizeof value && value == 5, named("hostile_fd_taken_eventfd_count_intact"),
          "the eventfd at %d holds %llu, want 5 (a lost wake-up)", lib, (unsigned long long) value);
  }

  stage = "socket";
  lib = before_library_fd();
  if (lib < 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, p) != 0 || p[0] != lib ||
      write(p[1], "SECRETPASSWORD!!", 16) != 16) {
    check(0, named("hostile_fd_taken_socket_data_intact"), "could not put a socket at the library's fd %d", lib);
  } else {
    calls_meanwhile();
    check(recv(p[0], got, sizeof got, MSG_DONTWAIT) == 16 && !memcmp(got, "SECRETPASSWORD!!", 16) &&
              recv(p[0], got, 1, MSG_DONTWAIT) < 0,
          named("hostile_fd_taken_socket_data_intact"), "the socket at %d lost or gained bytes", lib);
  }

  stage = "empty_pipe";
  lib = before_library_fd();
  if (lib < 0 || pipe(p) != 0 || p[0] != lib) {
    check(0, named("hostile_fd_taken_empty_pipe_returns"), "could not put a pipe at the library's fd %d", lib);
  } else {
    calls_meanwhile(); /* an empty blocking pipe: a read of it never returns; the alarm fails it */
    check(1, named("hostile_fd_taken_empty_pipe_returns"), "");
  }
  check(!backwards, named("hostile_fd_taken_never_backwards"), "%d counts went back", backwards);
}

/* ---- row 8: a pending cancel at a thread's first read ---- */

struct cancelled {
  volatile int go, read;
};

static void *first_read_cancelled(void *arg)
{
  struct cancelled *c = arg;
  /* no local whose address is taken: the cancel's unwinding would leave
     its frame poisoned for AddressSanitizer (make test-sanitize) */
  static int old;
  pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, &old);
  while (!c->go) continue; /* no cancellation point: the cancel stays pending */
  note_count();
  c->read = 1;
  pthread_testcancel();
  return 0;
}

static void pending_cancel(void)
{
  struct cancelled c;
  pthread_t t;
  long n = scaled(100), i, not_cancelled = 0, inside = 0;
  int before, after;
  note_count();
  before = perf_fds();
  for (i = 0; i < n; ++i) {
    void *ret = 0;
    c.go = c.read = 0;
    if (pthread_create(&t, 0, first_read_cancelled, &c) != 0) break;
    pthread_cancel(t);
    c.go = 1;
    pthread_join(t, &ret);
    if (ret != PTHREAD_CANCELED) ++not_cancelled;
    if (!c.read) ++inside;
  }
  after = perf_fds();
  check(after == before && before >= 0, named("hostile_cancel_no_perf_fd_leak"),
        "%d perf fds before, %d after %ld threads cancelled after their first read", before, after, i);
  check(!inside && !not_cancelled, named("hostile_cancel_not_inside_cpucycles"),
        "%ld threads were cancelled inside cpucycles(), %ld not at all", inside, not_cancelled);
}

/* Every scenario; all 0: one timer case of the default reader. */
static void scenarios(int all)
{
  char dir[] = "/tmp/cpucycles-noproc.XXXXXX";
  timers(all);
  in_child(named("hostile_close_range"), close_range_reader, 30);
  empty_dir[0] = 0;
  if (mkdtemp(dir)) snprintf(empty_dir, sizeof empty_dir, "%s", dir);
  in_child(named("hostile_no_proc"), no_proc, 30);
  in_child(named("hostile_no_proc_selection"), no_proc_selection, 30);
  if (empty_dir[0]) rmdir(empty_dir);
  in_child(named("hostile_fd_budget"), many_connections, 60);
  in_child(named("hostile_fd_taken"), fd_taken, 30);
  in_child(named("hostile_cancel"), pending_cancel, 30);
}

/* A hybrid Intel's E-core PMU (any type: the fake makes it the task clock) */
static long hybrid_read_text(const char *path, long offset, char *buf, size_t size)
{
  if (!strcmp(path, "/sys/bus/event_source/devices/cpu_atom/type") && size) {
    snprintf(buf, size, "%s", offset ? "" : "10\n");
    return (long) strlen(buf);
  }
  return real_read_text(path, offset, buf, size);
}

int main(void)
{
  static struct cpucycles_counter table[2];
  static struct cpucycles_selection s;
  emulated = getenv("CPUCYCLES_TEST_EMULATED") != 0;
  if (!fake_perfevent_alone("perf_hostile", table, &s)) return 0;
  read_count = s.read;
  perfevent_close = table[0].close;
  scenarios(1);
  /* again on a hybrid Intel: each thread's events are two fds */
  table[0].close();
  fake_os.read_text = hybrid_read_text;
  cpucycles_select(table, 2, vsnprintf, &s);
  if (s.chosen != 0 || (s.read(), perf_fds() != 2)) {
    skip("hostile_hybrid", "the two task-clock events of a hybrid did not open");
    return checks_failed();
  }
  read_count = s.read;
  variant = "hybrid_";
  per_thread = 2;
  scenarios(0);
  return checks_failed();
}
#endif
