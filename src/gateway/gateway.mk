# src/gateway/gateway.mk - build and install tablestore-gateway (included by the top Makefile).
#
#   make                      builds src/gateway/tablestore-gateway beside the extension
#   make install              installs it into $(bindir) of the PostgreSQL found by pg_config and,
#                             since Debian does not put that directory on the PATH, links it from
#                             $(GW_PATH_DIR) (default /usr/local/bin; GW_PATH_DIR= to skip)
#   make gateway              the gateway alone

GW_DIR := src/gateway
GW_SRCS := $(addprefix $(GW_DIR)/, main.c config.c listener.c router.c url.c auth.c sas.c oauth.c pool.c sqlapi.c route.c \
	tables.c entities.c batch.c batch_parse.c service.c props.c cors.c acl.c acl_xml.c xml.c response.c errors.c continuation.c log.c \
	common.c util.c)
GW_OBJS := $(GW_SRCS:.c=.gw.o)
GW_BIN := $(GW_DIR)/tablestore-gateway
GW_CFLAGS ?= -O2 -g
GW_INCLUDE := -I$(shell $(PG_CONFIG) --includedir)

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

$(GW_DIR)/%.gw.o: $(GW_DIR)/%.c $(wildcard $(GW_DIR)/*.h)
	$(CC) $(GW_CFLAGS) -std=gnu11 -Wall -Wextra -Werror -pthread $(GW_INCLUDE) -c -o $@ $<

$(GW_BIN): $(GW_OBJS)
	$(CC) $(GW_CFLAGS) -pthread -o $@ $(GW_OBJS) -lmicrohttpd -lpq -lcrypto -lpthread \
		-L$(shell $(PG_CONFIG) --pkglibdir) -lpgcommon -lpgport

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
	rm -f $(GW_OBJS) $(GW_BIN)

uninstall: uninstall-gateway
uninstall-gateway:
	rm -f '$(DESTDIR)$(bindir)/tablestore-gateway'
	@if [ -n '$(GW_PATH_DIR)' ] && [ -L '$(DESTDIR)$(GW_PATH_DIR)/tablestore-gateway' ]; then rm -f '$(DESTDIR)$(GW_PATH_DIR)/tablestore-gateway'; fi

.PHONY: gateway install-gateway clean-gateway uninstall-gateway gateway-missing-deps
