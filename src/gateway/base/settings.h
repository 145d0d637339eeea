/*
 * settings.h - THE table of tablestore-gateway's settings (settings.c): for each, its config-file
 * key, its command-line flag, its type and range, its default and its --help line. The flags,
 * the config file, --help and the defaults all read this one table, as pgbouncer's
 * bouncer_params[] serves its loader; nothing else names a setting. Adding a setting is one row
 * here (and its field in gateway.h's Config); test/gateway/unit checks every row.
 *
 * Not settings, and so not in the table: the accounts (AZURITE_ACCOUNTS, the config file's
 * "accounts" key and [account NAME] sections: config.c) and the flags that act rather than set
 * (--config, --print-sql, --help, --version).
 */
#ifndef GW_SETTINGS_H
#define GW_SETTINGS_H

#include "gateway.h"

#include <stdio.h>

typedef enum SettingType
{
	SET_INT,					/* an int field: a whole number from lo to hi */
	SET_BYTES,					/* a size_t field: a number of bytes from lo to hi */
	SET_MB,						/* a size_t field in bytes, given in MiB from lo to hi */
	SET_STRING,					/* a char * field (malloc'd) */
	SET_CHOICE,					/* an int-sized enum field: the index of one of choices */
	SET_SWITCH,					/* a bool field: choices[0] (false) or choices[1] (true) */
	SET_NODE					/* NAME=CONNINFO, added to Config's nodes (repeatable) */
} SettingType;

typedef struct Setting
{
	const char *key;			/* in the config file */
	const char *flag;			/* on the command line, without "--" */
	const char *arg;			/* the flag's argument in --help; NULL: it takes none and means choices[1] */
	SettingType type;
	size_t		offset;			/* of the field in Config */
	const char *def;			/* the default, as text, applied through the same check; NULL: unset */
	int			lo,
				hi;				/* SET_INT, SET_BYTES, SET_MB */
	const char *const *choices; /* SET_CHOICE, SET_SWITCH: NULL-terminated */
	const char *help;			/* --help's line; the default is added after it */
	const char *note;			/* said after the default in --help ("0 = none"), or NULL */
} Setting;

extern const Setting gw_settings[];
extern const int gw_nsettings;

extern const Setting *setting_by_key(const char *key);
extern const Setting *setting_by_flag(const char *flag);

/* Check value and set it into c; false with a message in err ("<key> must be ..."). */
extern bool setting_set(Config *c, const Setting *s, const char *value, char *err, size_t errlen);

/* "NAME=CONNINFO" into nodes: --node's, and an [account] section's node (config.c). */
extern bool setting_add_node(Node *nodes, int *nnodes, const char *v, char *err, size_t errlen);

/* The setting's value in c as text, as the config file would give it ("" when unset). */
extern void setting_format(const Config *c, const Setting *s, char *buf, size_t len);

/* Every setting at its default (c zeroed first); false only on a bad row of the table. */
extern bool settings_defaults(Config *c, char *err, size_t errlen);

/*
 * The command line: what it asks for, its settings applied after the config file (flags win).
 * settings_parse_args reads argv (getopt_long); false with a message in err on a bad flag or an
 * argument that is not one.
 */
#define GW_MAX_FLAGS 64

typedef struct GwArgs
{
	const char *config_file;	/* --config */
	bool		print_sql;		/* --print-sql */
	bool		help;			/* --help */
	bool		version;		/* --version */
	int			n;				/* the settings given, in order */
	const Setting *set[GW_MAX_FLAGS];
	const char *value[GW_MAX_FLAGS];
} GwArgs;

extern bool settings_parse_args(int argc, char **argv, GwArgs *out, char *err, size_t errlen);
extern bool settings_apply_args(Config *c, const GwArgs *a, char *err, size_t errlen);

/* --help: every setting's flag with its help and default, then the flags that act. */
extern void settings_usage(FILE *f);

#endif
