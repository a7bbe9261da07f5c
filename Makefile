# libcpucycles.  Run ./configure first: it decides what to build for the
# host and writes build/0/config.mk (variables) and build/0/rules.mk (one
# explicit rule per object).  This file says what the targets are.
#
# CC, CFLAGS, CPPFLAGS, LDFLAGS, LIBS, AR, STRIP and STATIC_CFLAGS come from
# configure and may be overridden for one run (make CC=clang CFLAGS=-O3);
# LIB_CFLAGS, the flags the library needs (-fPIC -fvisibility=hidden
# -fwrapv), is added anyway.  Each run builds with its own variables: what
# a changed variable affects is made again (the flags.* records below), and
# a later plain make goes back to configure's values.

default: all

# Until ./configure has run there is no build/0/config.mk: every target
# but clean and distclean then goes through $(STATE) = unconfigured, which
# says so (a single prerequisite, so that even make -j starts nothing
# else).  config.mk sets STATE = configured.
STATE = unconfigured
# (config.mk names the shared library for the host: a dylib for Darwin)
SHLIB = libcpucycles.so.1
SHLINK = libcpucycles.so
-include build/0/config.mk
-include build/0/rules.mk

COMPILE = $(CC) $(INC) $(CPPFLAGS) $(CFLAGS) $(LIB_CFLAGS)
STATIC_COMPILE = $(CC) $(INC) $(CPPFLAGS) $(STATIC_CFLAGS) $(LIB_CFLAGS)
LINK = $(CC) $(CFLAGS) $(LIB_CFLAGS) $(LDFLAGS)

# the libraries configure asked for (--disable-static, --disable-shared);
# the tests take both (ALLLIBFILES)
LIBFILES = $(LIBRARIES)
HEADER = $(PACKAGE)/include/cpucycles.h

all: $(STATE)

configured: $(HEADER) $(LIBFILES) $(PROGRAMS) $(INSTALLPROGRAMS) docs

unconfigured:
	@echo "libcpucycles: not configured yet: run ./configure first (./configure --help)" >&2; exit 1

$(HEADER): include/cpucycles.h
	@mkdir -p $(@D)
	cp include/cpucycles.h $@

$(PACKAGE)/lib/libcpucycles.a: $(STATICOBJS) $(B)/obj/flags.link
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $(STATICOBJS)

$(PACKAGE)/lib/$(SHLIB): $(LIBOBJS) wrapper/exports.map $(B)/obj/flags.link
	@mkdir -p $(@D)
	$(LINK) $(SHARED) $(LIBOBJS) -o $@ $(LIBPTHREAD) $(LIBS)

$(PACKAGE)/lib/$(SHLINK): $(PACKAGE)/lib/$(SHLIB)
	rm -f $@
	ln -s $(SHLIB) $@

# The commands each group of files is made with, as the shell splits them
# (scripts/stamp): a file is rewritten only when its command changed, and
# what depends on it is then made again.  FORCE makes make ask every run.
$(B)/obj/flags.compile: FORCE
	@mkdir -p $(@D)
	@sh scripts/stamp $@ 'compile command' $(COMPILE)
$(B)/obj/flags.static: FORCE
	@mkdir -p $(@D)
	@sh scripts/stamp $@ 'static library compile command' $(STATIC_COMPILE)
$(B)/obj/flags.link: FORCE
	@mkdir -p $(@D)
	@sh scripts/stamp $@ 'link command' $(LINK) $(SHARED) $(LIBPTHREAD) $(LIBS) ar: $(AR) \
	  tree: $(TREE_CMDLIB) $(TREE_RPATH)
$(B)/obj/flags.installbin: FORCE
	@mkdir -p $(@D)
	@sh scripts/stamp $@ 'installed commands' $(LINK) $(INSTALL_CMDLIB) $(INSTALL_RPATH)
FORCE:

# man pages, pkg-config and CMake files and docs go into the package
# tree: again only when a doc (DOCS, from configure), the script or the
# words the files are written with (flags.docs) change
docs: $(B)/obj/docs.made
$(B)/obj/docs.made: $(LIBFILES) $(DOCS) LICENSE scripts/package-docs wrapper/version.c $(B)/obj/flags.docs
	sh scripts/package-docs "$(PACKAGE)" "$(PREFIX)" "$(LIBPTHREAD) $(LIBS)" "$(LIBDIR)" "$(INCLUDEDIR)"
	@touch $@
$(B)/obj/flags.docs: FORCE
	@mkdir -p $(@D)
	@sh scripts/stamp $@ 'package files command' $(PACKAGE) $(PREFIX) $(LIBDIR) $(INCLUDEDIR) $(LIBPTHREAD) $(LIBS)

# Each part of the package tree goes to its directory (configure's
# --bindir, --libdir...); DESTDIR reaches the script apart: it goes in
# front of each, and decides whether ldconfig may run
INSTALLDIRS = bindir="$(BINDIR)" libdir="$(LIBDIR)" includedir="$(INCLUDEDIR)" \
              mandir="$(MANDIR)" docdir="$(DOCDIR)"
install: all
	DESTDIR="$(DESTDIR)" sh scripts/install "$(PACKAGE)" "$(PREFIX)" $(INSTALLDIRS) \
	  commands="$(CMDBIN)"

# the same, the programs and the shared library stripped of their symbols
install-strip: all
	DESTDIR="$(DESTDIR)" sh scripts/install "$(PACKAGE)" "$(PREFIX)" $(INSTALLDIRS) \
	  commands="$(CMDBIN)" strip="$(STRIP)"

# needs the configuration (for the directories and the list of
# programs), not the build: it works after make clean
uninstall: $(STATE)-settings
	DESTDIR="$(DESTDIR)" sh scripts/install --uninstall "$(PACKAGE)" "$(PREFIX)" $(INSTALLDIRS)
configured-settings:
unconfigured-settings: unconfigured

# the tests compile with the compiler and flags of this make run, and
# take both libraries whatever configure left out of make install
test check: all $(ALLLIBFILES)
	TEST_CC='$(CC) $(CFLAGS) $(LIB_CFLAGS) $(LDFLAGS)' sh scripts/test

# the same with groff, mandoc, clang, strace, valgrind, cmake and
# pkg-config out of reach: those tests must skip, naming the tool
test-without-optional: all $(ALLLIBFILES)
	TEST_CC='$(CC) $(CFLAGS) $(LIB_CFLAGS) $(LDFLAGS)' sh scripts/test-without-optional

test-sanitize: all $(ALLLIBFILES)
	sh scripts/test-sanitize

bench: all
	sh scripts/bench

# every ISA under qemu-user, one table (doc/cross.md); installs missing
# Debian packages only with CROSS_INSTALL=yes (or CI=true), else prints
# the command and skips the rows that lack them; ISAS="x86 arm64" picks rows
test-cross:
	CROSS_INSTALL="$(CROSS_INSTALL)" sh scripts/cross-test $(ISAS)

# real kernels with a PMU: Debian's arm64 and riscv64 kernels under
# qemu-system (doc/system.md); installs what it needs only with
# SYSTEM_INSTALL=yes (or CI=true), else prints the commands and skips
# (status 0; asked to install but unable, it fails)
test-system:
	SYSTEM_INSTALL="$(SYSTEM_INSTALL)" sh scripts/system-test

# the recipes of doc/packaging built, installed and used (doc/install.md);
# installs Debian's tools and the packages only with PACKAGE_INSTALL=yes
# (or CI=true), else runs what it can and skips the rest
test-packages:
	PACKAGE_INSTALL="$(PACKAGE_INSTALL)" sh scripts/package-test

# the release tarball, libcpucycles-VERSION.tar.gz, from the tree (the
# files git tracks; a tree with changes or untracked files is refused):
# the same bytes every time; needs no configure
dist:
	sh scripts/dist

# make dist, then the tarball unpacked, configured from a build directory
# of its own, built, tested (make check) and installed into a stage
distcheck:
	sh scripts/distcheck

# clean: what make built, for build/0's arch; the configuration stays.
# distclean: every build directory, the configuration and configure.log.
clean:
	rm -rf build/0/obj build/0/package build/0/tests build/0/sanitize build/0/tmp

distclean:
	rm -rf build configure.log

.PHONY: default all configured unconfigured docs install install-strip uninstall \
        configured-settings unconfigured-settings \
        test check test-without-optional test-sanitize test-cross test-system test-packages \
        bench dist distcheck clean distclean FORCE
