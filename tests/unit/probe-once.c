/* Each question to the machine asked once a selection (issue 38): every
   CPUID leaf, PR_GET_TSC, a refused perf_event_open, the fd limit, and
   the E-core PMU's file only once a cycles event opened.  The selection
   runs over the build's whole table against a fake machine (tests/fakeos.c
   hooks), which counts the questions; a second selection asks anew.
   Machines: an AMD guest of the Firecracker kind (leaves 0, 1 and
   0x40000000 and nothing more: 3 CPUID), an Intel guest that states its
   TSC rate, a hybrid Intel with its PMU, and an x86 without CPUID.  The
   counts do not depend on timing or load. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "internal.h"
#include "fakeos.h"

#define LEAVES 16
static unsigned int leaves[LEAVES][5]; /* leaf, eax, ebx, ecx, edx */
static int nleaves, cpuid_present;
static int asked[LEAVES], asked_other, tsc_asked, opens, limits, atom_read;
static int refuse = ENOENT; /* what perf_event_open says; 0: opens (task clock) */

static void leaf(unsigned int n, unsigned int a, unsigned int b, unsigned int c, unsigned int d)
{
  unsigned int *l = leaves[nleaves++];
  l[0] = n;
  l[1] = a;
  l[2] = b;
  l[3] = c;
  l[4] = d;
}

static unsigned int word(const char *s, int i)
{
  unsigned int w;
  memcpy(&w, s + 4 * i, 4);
  return w;
}

static void cpu(const char *vendor, unsigned int max, int guest)
{
  nleaves = 0;
  cpuid_present = 1;
  leaf(0, max, word(vendor, 0), word(vendor, 2), word(vendor, 1));
  leaf(1, 0x906ea, 0, guest ? 0x80000000u : 0, 0);
  leaf(0x80000000, 0x80000008, 0, 0, 0); /* asked on i386 before 0x80000007 */
}

static int fake_cpuid(unsigned int n, unsigned int subleaf, unsigned int r[4])
{
  int i;
  (void) subleaf;
  r[0] = r[1] = r[2] = r[3] = 0;
  for (i = 0; i < nleaves; ++i)
    if (leaves[i][0] == n) break;
  if (i < nleaves) ++asked[i];
  else ++asked_other;
  if (i < nleaves && cpuid_present) memcpy(r, &leaves[i][1], 4 * sizeof r[0]);
  return cpuid_present;
}

static int fake_tsc_faults(void)
{
  ++tsc_asked;
  return 0;
}

static long fake_open(void *attr, int pid, int cpu, int group_fd, unsigned long flags)
{
  ++opens;
  if (!refuse) return fake_software_cycles(attr, pid, cpu, group_fd, flags);
  errno = refuse;
  return -1;
}

static long fake_limit(void)
{
  ++limits;
  return 1024;
}

static int hybrid;
static long fake_read_text(const char *path, long offset, char *buf, size_t size)
{
  if (!strcmp(path, "/sys/bus/event_source/devices/cpu_atom/type")) {
    ++atom_read;
    if (hybrid && size) {
      snprintf(buf, size, "%s", offset ? "" : "10\n");
      return (long) strlen(buf);
    }
  }
  return real_read_text(path, offset, buf, size);
}

/* One selection over the whole table; the questions it asked. */
static void select_once(void)
{
  static struct cpucycles_selection s;
  memset(asked, 0, sizeof asked);
  asked_other = tsc_asked = opens = limits = atom_read = 0;
  cpucycles_select(cpucycles_counters, cpucycles_counter_count, 0, &s);
  if (s.chosen >= 0) cpucycles_counters[s.chosen].close();
}

static int total(void)
{
  int i, n = asked_other;
  for (i = 0; i < nleaves; ++i) n += asked[i];
  return n;
}

static int most(void)
{
  int i, n = asked_other ? 99 : 0;
  for (i = 0; i < nleaves; ++i)
    if (asked[i] > n) n = asked[i];
  return n;
}

static int has(const char *counter)
{
  int i;
  for (i = 0; i < cpucycles_counter_count; ++i)
    if (!strcmp(cpucycles_counters[i].name, counter)) return 1;
  return 0;
}

static void machine(const char *name, int want_total)
{
  char check_name[96];
  int round;
  for (round = 0; round < 2; ++round) {
    select_once();
    snprintf(check_name, sizeof check_name, "probe_once_%s%s", name, round ? "_again" : "");
    check(most() <= 1 && (!want_total || total() == want_total) && tsc_asked <= 1 && limits <= 1 &&
              (refuse == 0 || opens <= 1),
          check_name,
          "%d CPUID (want %d; 0: any), a leaf up to %d times (want 1), %d asked of no leaf; "
          "PR_GET_TSC %d, fd limit %d, perf_event_open %d",
          total(), want_total, most(), asked_other, tsc_asked, limits, opens);
  }
}

int main(void)
{
  if (!has("amd64-tsc") && !has("x86-tsc")) {
    skip("probe_once", "no x86 counters in this build");
    return 0;
  }
  fake_os.cpuid = fake_cpuid;
  fake_os.tsc_faults = fake_tsc_faults;
  fake_os.perf_event_open = fake_open;
  fake_os.fd_limit = fake_limit;
  fake_os.read_text = fake_read_text;

  /* an AMD guest of the Firecracker kind: its hypervisor leaf states no
     TSC rate, so leaves 0, 1 and 0x40000000 are all there is to ask */
  cpu("AuthenticAMD", 0x10, 1);
  leaf(0x40000000, 0x40000001, 0, 0, 0);
  machine("amd_guest", 3);
  check(atom_read == 0, "probe_once_no_atom_file_without_event",
        "the E-core PMU's file read %d times where no cycles event opens", atom_read);

  /* an Intel guest whose hypervisor states the TSC rate, without a PMU */
  cpu("GenuineIntel", 0x16, 1);
  leaf(0xa, 0, 0, 0, 0);
  leaf(0x40000000, 0x40000010, 0, 0, 0);
  leaf(0x40000010, 2300000, 0, 0, 0);
  leaf(0x80000007, 0, 0, 0, 0x100);
  machine("intel_guest", 0);

  /* a hybrid Intel with its PMU on bare metal: the cycles event opens
     (the task clock), the E-core file is read once */
  cpu("GenuineIntel", 0x20, 0);
  leaf(0xa, 5 | 8 << 8 | 48 << 16, 0, 0, 4 | 48 << 5);
  leaf(0x15, 2, 176, 38400000, 0);
  leaf(0x80000007, 0, 0, 0, 0x100);
  refuse = 0;
  hybrid = 1;
  machine("hybrid_intel", 0);
  check(atom_read <= 1, "probe_once_atom_file_once", "the E-core PMU's file read %d times", atom_read);
  refuse = ENOENT;
  hybrid = 0;

  /* an x86 without CPUID (a 486): every answer zero */
  cpu("NoCpuidHere!", 0, 0);
  cpuid_present = 0;
  machine("no_cpuid", 0);
  return checks_failed();
}
