# PGXS build of the locality_uuid extension.  The C++ core (src/core) and
# the PostgreSQL glue (src/pg) are linked into one module; the unit tests
# and fuzzers are built by CMake (CMakeLists.txt), see README.md.  Builds
# in the source tree (make) or in another directory
# (make -f ../Makefile VPATH=.., as Debian's pg_buildext does).

# This Makefile's directory: sources are found from it, not from the
# current directory.
SOURCE_DIR := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))

EXTENSION = locality_uuid
MODULE_big = locality_uuid
# The SQL scripts (extension/): the 1.0 install script and the update
# scripts are written by hand, once each; every later version's install
# script is made of them (extension/assemble.sh), so an object written for
# one version is never written again for the next.
EXTENSION_SCRIPTS = $(sort $(wildcard $(SOURCE_DIR)/extension/locality_uuid--*.sql))
EXTENSION_VERSIONS = $(shell ls $(SOURCE_DIR)/extension/ | sed -n 's/^locality_uuid--[^-]*--\(.*\)\.sql$$/\1/p')
DATA = $(patsubst $(SOURCE_DIR)/%,%,$(EXTENSION_SCRIPTS))
DATA_built = $(foreach v,$(EXTENSION_VERSIONS),locality_uuid--$(v).sql)
# src/pg is a folder per concern (src/pg/README.md).
PG_GLUE_DIRS = src/pg src/pg/functions src/pg/counters src/pg/reservations src/pg/identity
OBJS = $(patsubst $(SOURCE_DIR)/%.cpp,%.o,$(sort $(wildcard $(SOURCE_DIR)/src/core/*.cpp \
       $(foreach d,$(PG_GLUE_DIRS),$(SOURCE_DIR)/$(d)/*.cpp))))

# The extension's version, for the module's magic block (shown by
# pg_get_loaded_modules() on PostgreSQL 18+).
EXTVERSION = $(shell sed -n "s/^default_version *= *'\(.*\)'/\1/p" $(SOURCE_DIR)/locality_uuid.control)

# pg_regress suites in sql/ + expected/, isolation specs in specs/. Each
# suite's database gets the extension from pg_regress itself, so any one
# suite runs alone: make installcheck REGRESS=modes
REGRESS = layout generate modes extract uuid_v1 uuid_v1_seed uuid_v1_backfill bad_input \
          reserved_prefix privileges core_uuid_functions loaded_modules hot_guid fill
REGRESS_OPTS = --load-extension=locality_uuid
ISOLATION_SPECS = concurrent_generation
ISOLATION_OPTS = --load-extension=locality_uuid

# PostgreSQL's headers are included as system headers (-isystem wins over
# PGXS's -I for the same directory), so the warning flags below judge only
# this project's code.
PG_CPPFLAGS = -I$(SOURCE_DIR)/src/core -I$(SOURCE_DIR)/src/registry -I$(SOURCE_DIR)/src/pg -isystem $(shell $(PG_CONFIG) --includedir) -isystem $(includedir_server) -isystem $(includedir_internal) \
              -DLOCALITY_UUID_VERSION='"$(EXTVERSION)"'
# No exceptions or RTTI anywhere in the module: see src/pg/pg_boundary.hpp.
# -fvisibility=hidden: see src/pg/pg_boundary.hpp.
# -Wno-register: PostgreSQL's port/atomics/arch-x86.h uses 'register', which
# C++17 removed (clang makes it an error).
# WERROR=-Werror (set by scripts/test.sh) turns every warning into an error.
WERROR ?=
LOCALITY_CXXFLAGS = -std=c++17 -fno-exceptions -fno-rtti -Wno-register -fvisibility=hidden \
                    -Wall -Wextra $(WERROR)
PG_CXXFLAGS = $(LOCALITY_CXXFLAGS)
# libpq: the lease worker talks to the registry (src/pg/identity/lease.cpp).
SHLIB_LINK = -lcrypto -lstdc++ -L$(shell $(PG_CONFIG) --libdir) -lpq

# The command-line tool (below); set before PGXS, whose clean rule tests
# EXTRA_CLEAN when it is read.
CLI = locality-uuid
CLI_OBJECT_DIR = $(CURDIR)/cli-objects
EXTRA_CLEAN = $(CLI) $(CLI_OBJECT_DIR) locality_uuid_sql.sql locality_uuid_sql_uninstall.sql locality_uuid_sql_pgtle.sql locality_uuid_sql_fill.sql locality_uuid_sql

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)

# Debian ships pg_isolation_regress with PGXS from PostgreSQL 14 on; on 13
# the isolation specs cannot run and installcheck says so.
ifneq ($(wildcard $(dir $(PGXS))../test/isolation/pg_isolation_regress),)
ISOLATION = $(ISOLATION_SPECS)
else
$(info isolation specs skipped: this PostgreSQL ships no pg_isolation_regress)
endif

include $(PGXS)

# scripts/test.sh runs every compiler through its cache (ccache; see
# scripts/compiler_cache.sh), PGXS's clang too, which PGXS names by its path.
ifdef LOCALITY_COMPILER_LAUNCHER
CLANG := $(LOCALITY_COMPILER_LAUNCHER) $(CLANG)
endif

# PGXS tracks no header dependencies; every object depends on every header
# (a small tree, so a header change rebuilds the module). Objects go to
# src/... below the build directory, which a VPATH build must create
# (absolute names, or VPATH would find the source tree's directories).
HEADERS = $(wildcard $(SOURCE_DIR)/src/core/*.hpp $(SOURCE_DIR)/src/registry/*.hpp $(foreach d,$(PG_GLUE_DIRS),$(SOURCE_DIR)/$(d)/*.hpp))
OBJECT_DIRS = $(CURDIR)/src/core $(addprefix $(CURDIR)/,$(PG_GLUE_DIRS))
$(OBJS) $(OBJS:.o=.bc): $(HEADERS) | $(OBJECT_DIRS)
$(OBJECT_DIRS):
	mkdir -p $@

# Debian's PGXS also compiles every object to LLVM bitcode with clang, whose
# default dialect is C++14.
override BITCODE_CXXFLAGS += $(LOCALITY_CXXFLAGS)

# COPT, which PostgreSQL's makefiles append to the C flags only, is
# appended to the C++ flags too (the module's and the CLI's): scripts/test.sh
# builds with COPT=-g0 under qemu, where nothing reads debug information and
# writing it costs emulated time.
ifdef COPT
override CXXFLAGS += $(COPT)
endif

# An install script of a later version: 1.0 and the updates up to it.
$(DATA_built): locality_uuid--%.sql: $(EXTENSION_SCRIPTS) $(SOURCE_DIR)/extension/assemble.sh
	sh $(SOURCE_DIR)/extension/assemble.sh $* $(SOURCE_DIR)/extension >$@.tmp
	mv $@.tmp $@

# The PGXN distribution: make dist writes locality_uuid-<version>.zip (the
# version of META.json) of the committed tree, as git archive gives it (no
# build outputs), under a top directory locality_uuid-<version>/.
DISTVERSION = $(shell sed -n 's/^   "version": "\(.*\)",$$/\1/p' $(SOURCE_DIR)/META.json)
DISTNAME = $(EXTENSION)-$(DISTVERSION)

dist:
	git -C $(SOURCE_DIR) archive --format=zip --prefix=$(DISTNAME)/ -o $(CURDIR)/$(DISTNAME).zip HEAD

.PHONY: dist

# The locality-uuid command-line tool: same core, no PostgreSQL at run time,
# built by `make`, installed by `make install` into $(DESTDIR)$(CLI_BINDIR)
# and removed by `make uninstall`. CLI_BINDIR is PREFIX/bin (PREFIX
# defaults to /usr/local), or bindir when that is given on the command line
# (PGXS's own bindir is PostgreSQL's). CXXFLAGS, CPPFLAGS and LDFLAGS apply.
CLI_SOURCES = $(sort $(wildcard $(SOURCE_DIR)/src/cli/*.cpp $(SOURCE_DIR)/src/core/*.cpp))
# The fleet commands (src/cli/fleet.cpp) talk to servers through libpq.
CLI_LIBPQ_CPPFLAGS = -I$(shell $(PG_CONFIG) --includedir)
CLI_LIBPQ_LIBS = -L$(shell $(PG_CONFIG) --libdir) -lpq
PREFIX ?= /usr/local
CLI_BINDIR = $(if $(filter command line,$(origin bindir)),$(bindir),$(PREFIX)/bin)
# Its manual page goes to PREFIX/share/man/man1, or mandir/man1 when mandir
# is given on the command line.
CLI_MANDIR = $(if $(filter command line,$(origin mandir)),$(mandir),$(PREFIX)/share/man)/man1

# Its objects go to cli-objects/ below the build directory (built with
# exceptions and RTTI, unlike the module's), one compiler run each: make -j
# compiles them side by side. (An absolute name, as the module's objects:
# a VPATH build would find the source tree's.)
CLI_OBJS = $(patsubst $(SOURCE_DIR)/%.cpp,$(CLI_OBJECT_DIR)/%.o,$(CLI_SOURCES))
CLI_HEADERS = $(wildcard $(SOURCE_DIR)/src/core/*.hpp $(SOURCE_DIR)/src/registry/*.hpp $(SOURCE_DIR)/src/cli/*.hpp)

all: $(CLI)

$(CLI_OBJECT_DIR)/%.o: $(SOURCE_DIR)/%.cpp $(CLI_HEADERS) $(SOURCE_DIR)/locality_uuid.control
	@mkdir -p $(@D)
	$(CXX) -std=c++17 -Wall -Wextra $(WERROR) $(CPPFLAGS) -I$(SOURCE_DIR)/src/core -I$(SOURCE_DIR)/src/registry $(CLI_LIBPQ_CPPFLAGS) \
	  -DLOCALITY_UUID_VERSION='"$(EXTVERSION)"' $(CXXFLAGS) -c -o $@ $<

$(CLI): $(CLI_OBJS)
	$(CXX) $(CXXFLAGS) -o $@ $(CLI_OBJS) $(LDFLAGS) -lcrypto $(CLI_LIBPQ_LIBS)

# INSTALL_CLI=no (Debian's rules) leaves the CLI out of make install.
INSTALL_CLI ?= yes
ifeq ($(INSTALL_CLI),yes)
install: install-cli
uninstall: uninstall-cli
endif

install-cli: $(CLI)
	install -d '$(DESTDIR)$(CLI_BINDIR)' '$(DESTDIR)$(CLI_MANDIR)'
	install -m 755 $(CLI) '$(DESTDIR)$(CLI_BINDIR)/$(CLI)'
	install -m 644 $(SOURCE_DIR)/doc/$(CLI).1 '$(DESTDIR)$(CLI_MANDIR)/$(CLI).1'

uninstall-cli:
	rm -f '$(DESTDIR)$(CLI_BINDIR)/$(CLI)' '$(DESTDIR)$(CLI_MANDIR)/$(CLI).1'

.PHONY: install-cli uninstall-cli

# The SQL edition (README, Managed services), generated from src/sql/ in
# dependency order (a SQL function's body must find the functions it calls
# when it is created), with the C edition's locality_uuid_fill (PL/pgSQL,
# written once) taken from its install script:
#   locality_uuid_sql.sql            for psql -f (install, and upgrade)
#   locality_uuid_sql_uninstall.sql  for psql -f
#   locality_uuid_sql_pgtle.sql      for pg_tle
#   locality_uuid_sql/               the data-only extension locality_uuid_sql
#                                    (PGXS: make -C locality_uuid_sql install)
SQL_EDITION_DIR = locality_uuid_sql
SQL_EDITION_FILL = locality_uuid_sql_fill.sql
SQL_EDITION_SOURCES = $(addprefix $(SOURCE_DIR)/src/sql/,uuid_v1.sql md5.sql encode.sql readers.sql hot_guid_readers.sql \
	counters.sql node.sql generators.sql admin.sql privileges.sql retired.sql) $(SQL_EDITION_FILL)
SQL_EDITION_TOOLS = $(addprefix $(SOURCE_DIR)/src/sql/,signatures.sh install_check.sh)
# The SQL edition's own version: it moves when src/sql changes, not with the
# library. make_install.sh checks META.json against it; sql_edition_moves.sh
# checks that a released version's script (test/fixtures) is built unchanged.
SQL_EDITION_VERSION = 1.5
SQL_EDITION_SCRIPT = $(SQL_EDITION_DIR)/locality_uuid_sql--$(SQL_EDITION_VERSION).sql
# Earlier versions of the SQL edition that ALTER EXTENSION ... UPDATE (and
# pg_tle's update path) brings to this one.
SQL_EDITION_FROM = 1.2 1.3 1.4
SQL_EDITION_UPDATES = $(foreach v,$(SQL_EDITION_FROM),$(SQL_EDITION_DIR)/locality_uuid_sql--$(v)--$(SQL_EDITION_VERSION).sql)
SQL_EDITION_COMMENT = Locality UUIDs and exact version-1 tools in SQL and PL/pgSQL only (the SQL edition of locality_uuid)
.PHONY: sql-edition
sql-edition: locality_uuid_sql.sql locality_uuid_sql_uninstall.sql locality_uuid_sql_pgtle.sql \
	$(SQL_EDITION_SCRIPT) $(SQL_EDITION_UPDATES) $(SQL_EDITION_DIR)/locality_uuid_sql.control $(SQL_EDITION_DIR)/Makefile
$(SQL_EDITION_DIR):
	mkdir -p $@
# From the comment above CREATE PROCEDURE locality_uuid_fill to the end of
# its COMMENT; CREATE OR REPLACE, for a re-run of the psql script.
$(SQL_EDITION_FILL): locality_uuid--$(EXTVERSION).sql
	awk '/^-- Backfills: a column filled/ { p = 1 } \
	     p { print; if (c && /;$$/) exit; if (/^COMMENT ON PROCEDURE locality_uuid_fill/) c = 1 }' $< \
	  | sed 's/^CREATE PROCEDURE locality_uuid_fill(/CREATE OR REPLACE PROCEDURE locality_uuid_fill(/' >$@.tmp
	grep -q '^CREATE OR REPLACE PROCEDURE locality_uuid_fill(' $@.tmp && grep -q "^    'Fills col with expr" $@.tmp
	mv $@.tmp $@
locality_uuid_sql.sql: $(SQL_EDITION_SOURCES) $(SOURCE_DIR)/src/sql/psql_script.sh $(SQL_EDITION_TOOLS) $(SOURCE_DIR)/locality_uuid.control
	sh $(SOURCE_DIR)/src/sql/psql_script.sh install $(SQL_EDITION_VERSION) $(SQL_EDITION_SOURCES) >$@.tmp
	mv $@.tmp $@
locality_uuid_sql_uninstall.sql: $(SQL_EDITION_SOURCES) $(SOURCE_DIR)/src/sql/psql_script.sh $(SQL_EDITION_TOOLS) $(SOURCE_DIR)/locality_uuid.control
	sh $(SOURCE_DIR)/src/sql/psql_script.sh uninstall $(SQL_EDITION_VERSION) $(SQL_EDITION_SOURCES) >$@.tmp
	mv $@.tmp $@
$(SQL_EDITION_SCRIPT): $(SQL_EDITION_SOURCES) $(SOURCE_DIR)/src/sql/extension_script.sh $(SQL_EDITION_TOOLS) $(SOURCE_DIR)/locality_uuid.control | $(SQL_EDITION_DIR)
	sh $(SOURCE_DIR)/src/sql/extension_script.sh $(SQL_EDITION_VERSION) $(SQL_EDITION_SOURCES) >$@.tmp
	mv $@.tmp $@
$(SQL_EDITION_UPDATES): $(SQL_EDITION_DIR)/locality_uuid_sql--%--$(SQL_EDITION_VERSION).sql: $(SQL_EDITION_SOURCES) $(SOURCE_DIR)/src/sql/extension_script.sh $(SQL_EDITION_TOOLS) $(SOURCE_DIR)/locality_uuid.control | $(SQL_EDITION_DIR)
	sh $(SOURCE_DIR)/src/sql/extension_script.sh $(SQL_EDITION_VERSION) --from $* $(SQL_EDITION_SOURCES) >$@.tmp
	mv $@.tmp $@
locality_uuid_sql_pgtle.sql: $(SQL_EDITION_SCRIPT) $(SQL_EDITION_UPDATES) $(SOURCE_DIR)/src/sql/pgtle_script.sh
	sh $(SOURCE_DIR)/src/sql/pgtle_script.sh $(SQL_EDITION_VERSION) '$(SQL_EDITION_COMMENT)' $(SQL_EDITION_SCRIPT) $(SQL_EDITION_UPDATES) >$@.tmp
	mv $@.tmp $@
# Not relocatable: the functions name their schema. Not trusted: its
# objects would belong to the bootstrap superuser, SECURITY DEFINER ones
# included, in a schema another role may control (extension_script.sh);
# where no superuser is at hand, the psql script or pg_tle installs it as
# the role itself.
$(SQL_EDITION_DIR)/locality_uuid_sql.control: $(SOURCE_DIR)/locality_uuid.control $(SOURCE_DIR)/Makefile | $(SQL_EDITION_DIR)
	printf "comment = '%s'\ndefault_version = '%s'\nrelocatable = false\nsuperuser = true\n" \
	  '$(SQL_EDITION_COMMENT)' '$(SQL_EDITION_VERSION)' >$@
$(SQL_EDITION_DIR)/Makefile: $(SOURCE_DIR)/Makefile | $(SQL_EDITION_DIR)
	printf '%s\n' '# The SQL edition as a data-only extension: make install (PG_CONFIG=...).' \
	  'EXTENSION = locality_uuid_sql' 'DATA = $(notdir $(SQL_EDITION_SCRIPT) $(SQL_EDITION_UPDATES))' \
	  'PG_CONFIG ?= pg_config' 'PGXS := $$(shell $$(PG_CONFIG) --pgxs)' 'include $$(PGXS)' >$@
