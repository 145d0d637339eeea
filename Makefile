# Makefile - build, install and regression-test the tablestore extension (PGXS).
#
#   make && make install           build and install into the server found by pg_config
#   make installcheck              pg_regress: sql/<feature>.sql against expected/<feature>.out
#   scripts/test.sh                everything (regression, pgTAP, scenarios, TAP) on a throwaway cluster

EXTENSION = tablestore
EXTVERSION = $(shell sed -n "s/^default_version = '\(.*\)'/\1/p" $(EXTENSION).control)

MODULE_big = tablestore
OBJS = \
	src/tablestore.o src/ts_error.o src/ts_error_report.o \
	src/edm.o \
	src/entity_build.o src/entity_json_in.o src/entity_json_out.o src/entity_binary_in.o \
	src/entity_io.o src/entity_access.o src/entity_ops.o \
	src/ts_table.o src/etag.o src/stamp_trigger.o src/select_list.o src/ts_plans.o src/fast_path.o src/entity_dml.o \
	src/odata_lex.o src/odata_parse.o src/odata_sql.o src/filter_keys.o src/query.o src/batch_parse.o src/batch.o

# sql/tablestore.sql is the source of the install script; released upgrade scripts sit beside it.
DATA = $(wildcard sql/$(EXTENSION)--*--*.sql) sql/$(EXTENSION)--$(EXTVERSION).sql
EXTRA_CLEAN = sql/$(EXTENSION)--$(EXTVERSION).sql

# One regression file per feature: sql/<name>.sql -> expected/<name>.out
REGRESS = entity_io entity_limits entity_malformed entity_ops entity_binary tables stamp_trigger \
	odata_translate odata_errors typed_compare query_filters query_plans batch scoped_access
REGRESS_OPTS = --load-extension=$(EXTENSION)

PG_CPPFLAGS = -Isrc
PG_CFLAGS = -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare -Wno-missing-field-initializers
SHLIB_LINK = -lxxhash

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

sql/$(EXTENSION)--$(EXTVERSION).sql: sql/$(EXTENSION).sql
	cp $< $@

all: sql/$(EXTENSION)--$(EXTVERSION).sql

# the REST gateway (its own rules: src/gateway/gateway.mk)
include src/gateway/gateway.mk
