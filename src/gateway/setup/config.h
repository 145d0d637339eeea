/*
 * config.h - the config file, AZURITE_ACCOUNTS and the accounts' rules; the settings' table, with
 * their defaults, is settings.h's.
 */
#ifndef GW_CONFIG_H
#define GW_CONFIG_H

#include "gateway.h"

#define DEV_ACCOUNT "devstoreaccount1"
#define DEV_KEY "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="

/* Every setting at its default (settings.c's table); false only on a bad row of that table. */
extern bool config_defaults(Config *c, char *err, size_t errlen);
/* false with a message in err on a bad file */
extern bool config_load_file(Config *c, const char *path, char *err, size_t errlen);
extern bool config_add_accounts(Config *c, const char *spec, char *err, size_t errlen);	/* "name:key1[:key2];..." */
/* A setting by its config-file key, or "accounts". */
extern bool config_set(Config *c, const char *key, const char *value, char *err, size_t errlen);

/* The accounts' rules (config.c's header comment): every account gets its dsn. */
extern bool config_finish(Config *c, char *err, size_t errlen);

/* base_dsn with its database <dbname>_<account in lower case> (malloc'd); NULL with err set. */
extern char *config_account_dsn(const char *base_dsn, const char *account, char *err, size_t errlen);

#endif
