/* RISC-V's user counter CSRs by number (0 cycle, 1 time, 2 instret, 3-31
   hpmcounter3-31; perf's page numbers them one higher): Linux puts a
   cycles event on whichever counter the SBI gives it, often an
   hpmcounter, and the CSR number must be written into the instruction.
   riscv_csr(n) reads the low XLEN bits, riscv_csrh(n) RV32's high half. */
#define RISCV_CASE(n, base) \
  case n: __asm__ __volatile__("csrr %0, %1" : "=r"(v) : "i"(base + n)); break;
#define RISCV_CASES(base) \
  RISCV_CASE(0, base) RISCV_CASE(1, base) RISCV_CASE(2, base) RISCV_CASE(3, base) RISCV_CASE(4, base) \
  RISCV_CASE(5, base) RISCV_CASE(6, base) RISCV_CASE(7, base) RISCV_CASE(8, base) RISCV_CASE(9, base) \
  RISCV_CASE(10, base) RISCV_CASE(11, base) RISCV_CASE(12, base) RISCV_CASE(13, base) RISCV_CASE(14, base) \
  RISCV_CASE(15, base) RISCV_CASE(16, base) RISCV_CASE(17, base) RISCV_CASE(18, base) RISCV_CASE(19, base) \
  RISCV_CASE(20, base) RISCV_CASE(21, base) RISCV_CASE(22, base) RISCV_CASE(23, base) RISCV_CASE(24, base) \
  RISCV_CASE(25, base) RISCV_CASE(26, base) RISCV_CASE(27, base) RISCV_CASE(28, base) RISCV_CASE(29, base) \
  RISCV_CASE(30, base) RISCV_CASE(31, base)

static inline unsigned long riscv_csr(unsigned int n)
{
  unsigned long v = 0;
  switch (n) { RISCV_CASES(0xc00) }
  return v;
}

#if __riscv_xlen == 32
static inline unsigned long riscv_csrh(unsigned int n)
{
  unsigned long v = 0;
  switch (n) { RISCV_CASES(0xc80) }
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
