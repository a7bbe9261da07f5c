/* Tiny test helpers: every check prints "pass NAME" or "fail NAME: why";
   main returns checks_failed() so the runner also sees the exit status. */
#ifndef CPUCYCLES_TEST_CHECK_H
#define CPUCYCLES_TEST_CHECK_H

#include <stdarg.h>
#include <stdio.h>

static int check_failures;

static void check(int ok, const char *name, const char *fmt, ...)
{
  va_list ap;
  if (ok) {
    printf("pass %s\n", name);
  } else {
    ++check_failures;
    printf("fail %s: ", name);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
  }
  fflush(stdout);
}

#ifdef __GNUC__
__attribute__((unused)) /* a test whose every skip went to a helper */
#endif
static void skip(const char *name, const char *why)
{
  printf("skip %s: %s\n", name, why);
  fflush(stdout);
}

static int checks_failed(void)
{
  return check_failures != 0;
}

#endif
