# libcpucycles.  Run ./configure first: it decides what to build for the
# host and writes build/0/config.mk (variables) and build/0/rules.mk (one
# explicit rule per object).  This file says what the targets are.

default: all

include build/0/config.mk
include build/0/rules.mk

LIBS = $(PACKAGE)/lib/libcpucycles.a $(PACKAGE)/lib/libcpucycles.so.1 \
       $(PACKAGE)/lib/libcpucycles.so
HEADER = $(PACKAGE)/include/cpucycles.h

all: $(HEADER) $(LIBS) $(PROGRAMS) docs

$(HEADER): include/cpucycles.h
	cp include/cpucycles.h $@

$(PACKAGE)/lib/libcpucycles.a: $(LIBOBJS)
	rm -f $@
	$(AR) rcs $@ $(LIBOBJS)

$(PACKAGE)/lib/libcpucycles.so.1: $(LIBOBJS) wrapper/exports.map
	$(CC) $(SHARED) $(LIBOBJS) -o $@ $(LIBPTHREAD)

$(PACKAGE)/lib/libcpucycles.so: $(PACKAGE)/lib/libcpucycles.so.1
	rm -f $@
	ln -s libcpucycles.so.1 $@

# man pages, pkg-config file and docs go into the package tree
docs: $(LIBS)
	sh scripts/package-docs "$(PACKAGE)" "$(PREFIX)"

install: all
	sh scripts/install "$(PACKAGE)" "$(DESTDIR)$(PREFIX)"

uninstall:
	sh scripts/install --uninstall "$(PACKAGE)" "$(DESTDIR)$(PREFIX)"

test: all
	sh scripts/test

test-sanitize: all
	sh scripts/test-sanitize

bench: all
	sh scripts/bench

# every ISA under qemu-user, one table (doc/cross.md); installs missing
# Debian cross compilers and qemu-user when run as root
test-cross:
	sh scripts/cross-test

# a real kernel with a PMU: Debian's arm64 kernel under
# qemu-system-aarch64 (doc/system.md); installs what it needs as root
test-system:
	sh scripts/system-test

clean:
	rm -rf $(B)

.PHONY: default all docs install uninstall test test-sanitize test-cross test-system bench clean

# Reached only when ./configure has not run yet.
build/0/config.mk build/0/rules.mk:
	@echo "libcpucycles: run ./configure first" >&2; exit 1
