# PGXS build of the locality_uuid extension.  The C++ core (src/core) and
# the PostgreSQL glue (src/pg) are linked into one module; the unit tests,
# CLI and fuzzers are built by CMake (CMakeLists.txt), see README.md.

EXTENSION = locality_uuid
MODULE_big = locality_uuid
DATA = $(wildcard locality_uuid--*.sql)
OBJS = $(patsubst %.cpp,%.o,$(sort $(wildcard src/core/*.cpp src/pg/*.cpp)))

# pg_regress suites in sql/ + expected/, isolation specs in specs/.
REGRESS = layout generate modes extract uuid_v1 uuid_v1_backfill bad_input privileges
ISOLATION = concurrent_generation

PG_CPPFLAGS = -I$(srcdir)/src/core
# No exceptions or RTTI anywhere in the module: see src/pg/pg_boundary.hpp.
# -fvisibility=hidden: see src/pg/pg_boundary.hpp.
# -Wno-register: PostgreSQL's port/atomics/arch-x86.h uses 'register', which
# C++17 removed (clang makes it an error).
LOCALITY_CXXFLAGS = -std=c++17 -fno-exceptions -fno-rtti -Wno-register -fvisibility=hidden
PG_CXXFLAGS = $(LOCALITY_CXXFLAGS)
SHLIB_LINK = -lcrypto -lstdc++

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# PGXS tracks no header dependencies; every object depends on every header
# (a small tree, so a header change rebuilds the module).
HEADERS = $(wildcard src/core/*.hpp src/pg/*.hpp)
$(OBJS) $(OBJS:.o=.bc): $(HEADERS)

# Debian's PGXS also compiles every object to LLVM bitcode with clang, whose
# default dialect is C++14.
override BITCODE_CXXFLAGS += $(LOCALITY_CXXFLAGS)

# The locality-uuid command-line tool: same core, no PostgreSQL at run time,
# built by `make` and installed by `make install` into $(PREFIX)/bin.
CLI = locality-uuid
CLI_SOURCES = src/cli/main.cpp $(sort $(wildcard src/core/*.cpp))
PREFIX ?= /usr/local
EXTRA_CLEAN = $(CLI)

all: $(CLI)

$(CLI): $(CLI_SOURCES) $(wildcard src/core/*.hpp)
	$(CXX) -std=c++17 -O2 -Wall -I$(srcdir)/src/core -o $@ $(CLI_SOURCES) -lcrypto

install: install-cli

install-cli: $(CLI)
	install -d '$(DESTDIR)$(PREFIX)/bin'
	install -m 755 $(CLI) '$(DESTDIR)$(PREFIX)/bin/$(CLI)'

.PHONY: install-cli
