# src/gateway/gateway.mk - build and install tablestore-gateway (included by the top Makefile).
#
#   make                      builds src/gateway/tablestore-gateway beside the extension
#   make install              installs it into $(bindir) of the PostgreSQL found by pg_config
#   make gateway              the gateway alone

GW_DIR := src/gateway
GW_SRCS := $(addprefix $(GW_DIR)/, main.c config.c listener.c router.c url.c auth.c pool.c sqlapi.c \
	tables.c entities.c batch.c batch_parse.c service.c response.c errors.c continuation.c log.c \
	common.c jsonscan.c util.c)
GW_OBJS := $(GW_SRCS:.c=.gw.o)
GW_BIN := $(GW_DIR)/tablestore-gateway
GW_CFLAGS ?= -O2 -g
GW_INCLUDE := -I$(shell $(PG_CONFIG) --includedir)

all: $(GW_BIN)
gateway: $(GW_BIN)

$(GW_DIR)/%.gw.o: $(GW_DIR)/%.c $(wildcard $(GW_DIR)/*.h)
	$(CC) $(GW_CFLAGS) -std=gnu11 -Wall -Wextra -Werror -pthread $(GW_INCLUDE) -c -o $@ $<

$(GW_BIN): $(GW_OBJS)
	$(CC) $(GW_CFLAGS) -pthread -o $@ $(GW_OBJS) -lmicrohttpd -lpq -lcrypto -lpthread

install: install-gateway
install-gateway: $(GW_BIN)
	$(MKDIR_P) '$(DESTDIR)$(bindir)'
	$(INSTALL_PROGRAM) $(GW_BIN) '$(DESTDIR)$(bindir)/tablestore-gateway'

clean: clean-gateway
clean-gateway:
	rm -f $(GW_OBJS) $(GW_BIN)

.PHONY: gateway install-gateway clean-gateway
