# src/copy/copy.mk - build and install tablestore-copy (included by the top Makefile).
#
#   make                      builds src/copy/tablestore-copy beside the extension and the gateway
#   make install              installs it into $(bindir) of the PostgreSQL found by pg_config and
#                             links it from $(GW_PATH_DIR) as the gateway is (GW_PATH_DIR= to skip)
#   make copy                 the program alone
#
# It links the same backend-free core as the gateway (src/core, compiled for the frontend into
# the same src/core/*.gw.o objects), libcurl, zlib, libpq, OpenSSL's libcrypto and libxxhash. The
# core's palloc family is wrapped (mem.c): an arena per batch instead of a leak per entity.

CP_DIR := src/copy
# its layers (src/layers.conf): src/copy/base, src/copy/endpoints, and src/copy itself on top
CP_LAYERS := $(filter copy copy/%,$(call layers_of,copy))
CP_SRCS := $(sort $(foreach d,$(CP_LAYERS),$(wildcard src/$(d)/*.c)))
CP_OBJS := $(CP_SRCS:.c=.cp.o)
CP_CORE_SRCS := $(call core_srcs,edm.c entity_binary_in.c entity_build.c entity_json_in.c entity_json_out.c \
	etag_text.c json_lex.c odata_eval.c odata_lex.c odata_parse.c sign.c ts_error.c)
CP_CORE_OBJS := $(CP_CORE_SRCS:.c=.gw.o)
CP_BIN := $(CP_DIR)/tablestore-copy
comma := ,
CP_WRAP := palloc palloc0 palloc_extended palloc_mul palloc0_mul palloc_mul_extended pfree repalloc repalloc_mul \
	pstrdup pnstrdup
CP_LIBS := $(addprefix -Wl$(comma)--wrap=,$(CP_WRAP)) -lcurl -lz -lpq -lcrypto -lxxhash -lpthread \
	-L$(shell $(PG_CONFIG) --pkglibdir) -lpgcommon -lpgport -lm

CP_HAVE_DEPS := $(shell printf '\043include <curl/curl.h>\n\043include <zlib.h>\n\043include <libpq-fe.h>\n\043include <openssl/hmac.h>\n\043include <xxhash.h>\n' | \
	$(CC) -E $(CORE_INCLUDE) -x c - >/dev/null 2>&1 && echo yes)
ifeq ($(CP_HAVE_DEPS),yes)
all: $(CP_BIN)
install: install-copy
else
all: copy-missing-deps
copy-missing-deps:
	@echo "warning: tablestore-copy not built: install libcurl4-openssl-dev zlib1g-dev libpq-dev libssl-dev libxxhash-dev" >&2
endif
copy: $(CP_BIN)

$(CP_DIR)/%.cp.o: $(CP_DIR)/%.c
	$(FE_CC) $(CORE_INCLUDE) $(addprefix -Isrc/,$(CP_LAYERS)) -Wno-sign-compare -Wno-missing-field-initializers -c -o $@ $<

# (and the core objects' own: a changed core header rebuilds them for this program too)
-include $(CP_OBJS:.o=.d) $(CP_CORE_OBJS:.o=.d)

$(CP_BIN): $(CP_OBJS) $(CP_CORE_OBJS)
	$(CC) $(GW_CFLAGS) -pthread -o $@ $(CP_OBJS) $(CP_CORE_OBJS) $(CP_LIBS)

install-copy: $(CP_BIN)
	$(MKDIR_P) '$(DESTDIR)$(bindir)'
	$(INSTALL_PROGRAM) $(CP_BIN) '$(DESTDIR)$(bindir)/tablestore-copy'
	@if [ -n '$(GW_PATH_DIR)' ] && [ '$(abspath $(DESTDIR)$(bindir))' != '$(abspath $(DESTDIR)$(GW_PATH_DIR))' ]; then \
		$(MKDIR_P) '$(DESTDIR)$(GW_PATH_DIR)' && \
		ln -sf '$(bindir)/tablestore-copy' '$(DESTDIR)$(GW_PATH_DIR)/tablestore-copy' && \
		echo "linked $(DESTDIR)$(GW_PATH_DIR)/tablestore-copy -> $(bindir)/tablestore-copy"; fi

clean: clean-copy
clean-copy:
	rm -f $(CP_OBJS) $(CP_OBJS:.o=.d) $(CP_BIN) $(filter-out $(GW_CORE_OBJS),$(CP_CORE_OBJS)) \
		$(patsubst %.o,%.d,$(filter-out $(GW_CORE_OBJS),$(CP_CORE_OBJS)))

uninstall: uninstall-copy
uninstall-copy:
	rm -f '$(DESTDIR)$(bindir)/tablestore-copy'
	@if [ -n '$(GW_PATH_DIR)' ] && [ -L '$(DESTDIR)$(GW_PATH_DIR)/tablestore-copy' ]; then rm -f '$(DESTDIR)$(GW_PATH_DIR)/tablestore-copy'; fi

.PHONY: copy install-copy clean-copy uninstall-copy copy-missing-deps
