# src/gateway/gateway.mk - build and install tablestore-gateway (included by the top Makefile).
#
#   make                      builds src/gateway/tablestore-gateway beside the extension
#   make install              installs it into $(bindir) of the PostgreSQL found by pg_config and,
#                             since Debian does not put that directory on the PATH, links it from
#                             $(GW_PATH_DIR) (default /usr/local/bin; GW_PATH_DIR= to skip)
#   make gateway              the gateway alone
#   make gateway-unit         the gateway's unit tests (test/gateway/unit/gateway-unit)

GW_DIR := src/gateway
# its layers, one folder each under src/gateway (src/layers.conf)
GW_LAYERS := $(filter gateway/%,$(call layers_of,gateway))
GW_SRCS := $(sort $(foreach d,$(GW_LAYERS),$(wildcard src/$(d)/*.c)))
GW_OBJS := $(GW_SRCS:.c=.gw.o)
# the backend-free core the gateway shares with the extension (codecs, the JSON tokenizer, the
# error table), compiled for the frontend as the fuzz targets compile it: core_srcs finds each
# file in its layer's folder
CORE_LAYERS := $(call layers_of,core)
core_srcs = $(foreach f,$(1),$(firstword $(wildcard $(addsuffix /$(f),$(addprefix src/,$(CORE_LAYERS))))))
GW_CORE_SRCS := $(call core_srcs,edm.c json_lex.c odata_keys.c odata_lex.c odata_parse.c route_key.c shard_hash.c sign.c ts_error.c)
GW_CORE_OBJS := $(GW_CORE_SRCS:.c=.gw.o)
GW_BIN := $(GW_DIR)/tablestore-gateway
GW_CFLAGS ?= -O2 -g
CORE_INCLUDE := -I$(shell $(PG_CONFIG) --includedir) -I$(shell $(PG_CONFIG) --includedir-server) $(addprefix -Isrc/,$(CORE_LAYERS))
GW_INCLUDE := $(CORE_INCLUDE) $(addprefix -Isrc/,$(GW_LAYERS))
GW_DEFS := -D_GNU_SOURCE -DTS_FRONTEND -DTS_VERSION='"$(EXTVERSION)"'
GW_LIBS := -lmicrohttpd -lpq -lcrypto -lpthread -L$(shell $(PG_CONFIG) --pkglibdir) -lpgcommon -lpgport -lm

# Built with the extension when its libraries' headers are there (libmicrohttpd-dev, libpq-dev,
# libssl-dev); otherwise `make` warns and builds the extension alone, and `make gateway` fails.
GW_HAVE_DEPS := $(shell printf '\043include <microhttpd.h>\n\043include <libpq-fe.h>\n\043include <openssl/hmac.h>\n' | \
	$(CC) -E $(GW_INCLUDE) -x c - >/dev/null 2>&1 && echo yes)
ifeq ($(GW_HAVE_DEPS),yes)
all: $(GW_BIN)
install: install-gateway
else
all: gateway-missing-deps
gateway-missing-deps:
	@echo "warning: tablestore-gateway not built: install libmicrohttpd-dev libpq-dev libssl-dev" >&2
endif
gateway: $(GW_BIN)

# the compiler for the frontend programs (their include folders added by each)
FE_CC := $(CC) $(GW_CFLAGS) -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter -pthread $(GW_DEFS) -MMD -MP
GW_CC := $(FE_CC) $(GW_INCLUDE)
$(GW_DIR)/%.gw.o: $(GW_DIR)/%.c
	$(GW_CC) -c -o $@ $<
src/core/%.gw.o: src/core/%.c
	$(FE_CC) $(CORE_INCLUDE) -Wno-sign-compare -Wno-missing-field-initializers -c -o $@ $<

-include $(GW_OBJS:.o=.d) $(GW_CORE_OBJS:.o=.d)

$(GW_BIN): $(GW_OBJS) $(GW_CORE_OBJS)
	$(CC) $(GW_CFLAGS) -pthread -o $@ $(GW_OBJS) $(GW_CORE_OBJS) $(GW_LIBS)

# the gateway's own unit tests (test/gateway/unit): every gateway object but main's, with the core
GW_UNIT_BIN := test/gateway/unit/gateway-unit
GW_UNIT_SRCS := $(sort $(wildcard test/gateway/unit/*.c))
$(GW_UNIT_BIN): $(GW_UNIT_SRCS) test/gateway/unit/unit.h $(filter-out $(GW_DIR)/server/main.gw.o,$(GW_OBJS)) $(GW_CORE_OBJS)
	$(GW_CC) -o $@ $(filter %.c %.o,$^) $(GW_LIBS)
gateway-unit: $(GW_UNIT_BIN)

GW_PATH_DIR ?= /usr/local/bin
install-gateway: $(GW_BIN)
	$(MKDIR_P) '$(DESTDIR)$(bindir)'
	$(INSTALL_PROGRAM) $(GW_BIN) '$(DESTDIR)$(bindir)/tablestore-gateway'
	@if [ -n '$(GW_PATH_DIR)' ] && [ '$(abspath $(DESTDIR)$(bindir))' != '$(abspath $(DESTDIR)$(GW_PATH_DIR))' ]; then \
		$(MKDIR_P) '$(DESTDIR)$(GW_PATH_DIR)' && \
		ln -sf '$(bindir)/tablestore-gateway' '$(DESTDIR)$(GW_PATH_DIR)/tablestore-gateway' && \
		echo "linked $(DESTDIR)$(GW_PATH_DIR)/tablestore-gateway -> $(bindir)/tablestore-gateway"; fi

clean: clean-gateway
clean-gateway:
	rm -f $(GW_OBJS) $(GW_CORE_OBJS) $(GW_OBJS:.o=.d) $(GW_CORE_OBJS:.o=.d) $(GW_BIN) $(GW_UNIT_BIN)

uninstall: uninstall-gateway
uninstall-gateway:
	rm -f '$(DESTDIR)$(bindir)/tablestore-gateway'
	@if [ -n '$(GW_PATH_DIR)' ] && [ -L '$(DESTDIR)$(GW_PATH_DIR)/tablestore-gateway' ]; then rm -f '$(DESTDIR)$(GW_PATH_DIR)/tablestore-gateway'; fi

.PHONY: gateway gateway-unit install-gateway clean-gateway uninstall-gateway gateway-missing-deps
