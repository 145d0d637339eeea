# Makefile - build, install and test the tablestore extension (PGXS).
#
#   make && make install        build and install into the server that pg_config names
#   make installcheck           pg_regress: test/sql/<name>.sql against test/expected/<name>.out (every file)
#   make installcheck-pgtap     pgTAP: test/pgtap/*.sql through pg_prove (needs pgtap installed)
#   make prove_installcheck     TAP: test/t/*.pl on PostgreSQL::Test::Cluster (run as a non-root user)
#   make TS_ASSERT=1            Assert()s enabled and warnings as errors (what the suite builds)
#   bash scripts/test.sh        everything, on a throwaway cluster
#
# PG_CONFIG may name another installation: make PG_CONFIG=/path/to/pg_config

EXTENSION = tablestore
EXTVERSION = $(shell sed -n "s/^default_version = '\(.*\)'/\1/p" $(EXTENSION).control)

# Each program is built from its layers, one folder under src/ each, in the order of
# src/layers.conf (the one list of them: test/arch/layers.pl checks every call against it)
layers_of = $(shell sed -n 's/^$(1):[[:space:]]*//p' src/layers.conf)
EXT_LAYERS := $(call layers_of,extension)

MODULE_big = tablestore
OBJS = $(patsubst %.c,%.o,$(sort $(foreach d,$(EXT_LAYERS),$(wildcard src/$(d)/*.c))))

# As pgvector keeps them: sql/tablestore.sql is the source of the current version's install
# script; the scripts of released versions and the upgrade scripts between versions
# (tablestore--A--B.sql) sit beside it in sql/.
DATA_built = sql/$(EXTENSION)--$(EXTVERSION).sql
DATA = $(filter-out $(DATA_built),$(wildcard sql/$(EXTENSION)--*.sql))

# pg_regress: every test/sql/<name>.sql against test/expected/<name>.out (as pgvector keeps them),
# so a new test cannot be left out by mistake
REGRESS = $(sort $(patsubst test/sql/%.sql,%,$(wildcard test/sql/*.sql)))
REGRESS_OPTS = --inputdir=test --load-extension=$(EXTENSION) --encoding=UTF8

PGTAP_TESTS = $(sort $(wildcard test/pgtap/*.sql))
PROVE_TESTS = $(sort $(wildcard test/t/*.pl))

PG_CPPFLAGS += $(addprefix -Isrc/,$(EXT_LAYERS)) -DTS_VERSION='"$(EXTVERSION)"'
PG_CFLAGS += -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare -Wno-missing-field-initializers
# header dependencies (PGXS tracks none unless PostgreSQL was configured with --enable-depend)
PG_CFLAGS += -MMD -MP
ifdef TS_ASSERT
PG_CPPFLAGS += -DUSE_ASSERT_CHECKING
PG_CFLAGS += -Werror
endif
SHLIB_LINK += -lxxhash
# libpq: calls forwarded to a distributed table's nodes over postgres_fdw's connections (remote_call.c)
PG_CPPFLAGS += -I$(shell $(PG_CONFIG) --includedir)
SHLIB_LINK += -lpq

EXTRA_CLEAN = $(DATA_built) $(OBJS:.o=.d)

PG_CONFIG ?= pg_config
# PostgreSQL 15 only (src/core/base/ts_core.h says why): another major version is refused before anything
# is built or installed (test/arch/versions.sh checks this refusal)
PG_MAJOR := $(if $(PG_CONFIG),$(shell $(PG_CONFIG) --version 2>/dev/null | sed -n 's/^PostgreSQL \([0-9]*\).*/\1/p'))
ifneq ($(PG_MAJOR),15)
$(error tablestore builds for PostgreSQL 15 only, and PG_CONFIG=$(PG_CONFIG) is $(if $(PG_MAJOR),PostgreSQL $(PG_MAJOR),no pg_config that answers): give PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config)
endif
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

$(DATA_built): sql/$(EXTENSION).sql $(EXTENSION).control
	cp $< $@

-include $(OBJS:.o=.d)

# TAP tests, as pgvector runs them (PGXS defines the recipe; TAP_TESTS would also tie them to installcheck)
.PHONY: prove_installcheck installcheck-pgtap
prove_installcheck:
	$(prove_installcheck)

# pgTAP files, each in a fresh database (PGHOST/PGPORT/PGUSER say which server)
installcheck-pgtap:
	@status=0; for f in $(PGTAP_TESTS); do \
		db=tap_$$(basename $$f .sql); \
		psql -X -q -c "DROP DATABASE IF EXISTS $$db" -c "CREATE DATABASE $$db" >/dev/null && \
		psql -X -q -d $$db -c "CREATE EXTENSION pgtap; CREATE EXTENSION $(EXTENSION);" >/dev/null && \
		pg_prove -d $$db --failures $$f || status=1; \
	done; exit $$status

# make print-REGRESS and the like: a variable's value, for scripts
print-%:
	@echo $($*)

# the REST gateway, tablestore-gateway (its own rules: src/gateway/gateway.mk)
include src/gateway/gateway.mk

# tablestore-copy, the copy program (its own rules: src/copy/copy.mk)
include src/copy/copy.mk
