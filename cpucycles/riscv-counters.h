/* RISC-V's user counter CSRs by number (0 cycle, 1 time, 2 instret, 3-31
   hpmcounter3-31; perf's page numbers them one higher): Linux puts a
   cycles event on whichever counter the SBI gives it, often an
   hpmcounter, and the CSR number must be written into the instruction.
   riscv_csr(n) reads the low XLEN bits, riscv_csrh(n) RV32's high half. */
/* CSR base + k into v where n is k: an if-else chain, which compilers make
   a jump table */
#define RISCV_CSR(k, base) \
  if (n == k) __asm__ __volatile__("csrr %0, %1" : "=r"(v) : "i"(base + k));
#define RISCV_CSRS(base) \
  RISCV_CSR(0, base) else RISCV_CSR(1, base) else RISCV_CSR(2, base) \
  else RISCV_CSR(3, base) else RISCV_CSR(4, base) else RISCV_CSR(5, base) \
  else RISCV_CSR(6, base) else RISCV_CSR(7, base) else RISCV_CSR(8, base) \
  else RISCV_CSR(9, base) else RISCV_CSR(10, base) else RISCV_CSR(11, base) \
  else RISCV_CSR(12, base) else RISCV_CSR(13, base) else RISCV_CSR(14, base) \
  else RISCV_CSR(15, base) else RISCV_CSR(16, base) else RISCV_CSR(17, base) \
  else RISCV_CSR(18, base) else RISCV_CSR(19, base) else RISCV_CSR(20, base) \
  else RISCV_CSR(21, base) else RISCV_CSR(22, base) else RISCV_CSR(23, base) \
  else RISCV_CSR(24, base) else RISCV_CSR(25, base) else RISCV_CSR(26, base) \
  else RISCV_CSR(27, base) else RISCV_CSR(28, base) else RISCV_CSR(29, base) \
  else RISCV_CSR(30, base) else RISCV_CSR(31, base)

static inline unsigned long riscv_csr(unsigned int n)
{
  unsigned long v = 0;
  RISCV_CSRS(0xc00)
  return v;
}

#if __riscv_xlen == 32
static inline unsigned long riscv_csrh(unsigned int n)
{
  unsigned long v = 0;
  RISCV_CSRS(0xc80)
  return v;
}

/* high, low, high again, until the high half held still */
static inline unsigned long long riscv_counter(unsigned int n)
{
  unsigned long hi, lo;
  do {
    hi = riscv_csrh(n);
    lo = riscv_csr(n);
  } while (hi != riscv_csrh(n));
  return (unsigned long long) hi << 32 | lo;
}
#else
static inline unsigned long long riscv_counter(unsigned int n)
{
  return riscv_csr(n);
}
#endif
