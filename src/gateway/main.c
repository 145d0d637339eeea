/*
 * main.c - tablestore-gateway: the flags and the configuration read (settings.c's table, config.c),
 * the accounts' databases, pools and workers, signals.
 *
 *   tablestore-gateway --port N --dsn 'CONNINFO'    foreground, 127.0.0.1:N, development account
 *   tablestore-gateway --config FILE                settings and accounts from a file
 * SIGINT/SIGTERM stop it: no new connections, requests in flight finish, pools close. They are
 * blocked before any thread starts, so one sent during start-up stops it the same way.
 */
#include "account_db.h"
#include "config.h"
#include "gateway.h"
#include "listener.h"
#include "pool.h"
#include "settings.h"
#include "worker.h"

#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An account's database (checked, or created), its pools, its workers and its cache. false: say why. */
static bool
start_account(Account *a)
{
	char		why[512];
	int			n;

	switch (account_db_prepare(a, why, sizeof(why)))
	{
		case ADB_OK:
			break;
		case ADB_UNREACHABLE:
			log_msg("account %s: %s; its requests answer 503 ServerBusy until it can be reached", a->name, why);
			break;
		case ADB_REFUSED:
			fprintf(stderr, "tablestore-gateway: account %s: %s\n", a->name, why);
			return false;
	}
	a->pool = pool_create(a->dsn, a->name, gw_config.pool_size, gw_config.queue_max, gw_config.queue_timeout_ms,
						  gw_config.statement_timeout_ms);
	a->props = props_cache_create();
	if (gw_config.threads > 0)
		a->workers = workers_create(a->name, gw_config.pool_size, gw_config.queue_max, gw_config.queue_timeout_ms,
									listener_work_run(), listener_work_done());
	if (a->pool == NULL || a->props == NULL || (gw_config.threads > 0 && a->workers == NULL))
	{
		fprintf(stderr, "tablestore-gateway: out of memory\n");
		return false;
	}
	n = pool_warm(a->pool, why, sizeof(why));
	if (n < gw_config.pool_size)
		log_msg("account %s: %d of %d database connections made (%s); the rest are made on demand",
				a->name, n, gw_config.pool_size, why);
	for (int k = 0; k < a->nnodes; k++)
	{
		Node	   *nd = &a->nodes[k];

		nd->pool = pool_create(nd->dsn, a->name, gw_config.pool_size, gw_config.queue_max, gw_config.queue_timeout_ms,
							   gw_config.statement_timeout_ms);
		if (nd->pool == NULL)
		{
			fprintf(stderr, "tablestore-gateway: out of memory\n");
			return false;
		}
	}
	return true;
}

/* Is SIGINT or SIGTERM pending (blocked since the start)? Then take it into *sig. */
static bool
stop_requested(const sigset_t *sigs, int *sig)
{
	sigset_t	pending;
	struct timespec zero = {0, 0};

	if (sigpending(&pending) != 0 || (!sigismember(&pending, SIGINT) && !sigismember(&pending, SIGTERM)))
		return false;
	*sig = sigtimedwait(sigs, NULL, &zero);
	return *sig > 0;
}

/* The stop: no new connections, requests in flight (and queued) finish, pools close. Exit 0. */
static int
stop(int sig, const char *when)
{
	log_msg("signal %d%s%s: stopping", sig, *when ? " " : "", when);
	listener_quiesce();
	for (int i = 0; i < gw_config.naccounts; i++)
		workers_stop(gw_config.accounts[i].workers);	/* every suspended connection resumed */
	listener_stop();
	for (int i = 0; i < gw_config.naccounts; i++)
	{
		pool_destroy(gw_config.accounts[i].pool);
		free(gw_config.accounts[i].dsn);
	}
	free(gw_config.listen_addr);
	free(gw_config.default_dsn);
	return 0;
}

/*
 * glibc raises its mmap threshold to the size of each large block freed (up to 32 MiB), after
 * which answers of up to that size come from the threads' arenas and stay there once freed (a
 * 16.8 MB page read by 50 connections left 172 MiB behind). A fixed threshold keeps every large
 * block (bodies, answers, libpq's results) in mappings of its own, given back when freed.
 */
static void
malloc_settings(void)
{
	mallopt(M_MMAP_THRESHOLD, 256 * 1024);
	mallopt(M_TRIM_THRESHOLD, 1024 * 1024);
}

int
main(int argc, char **argv)
{
	GwArgs		args;
	char		err[512];
	const char *env;
	sigset_t	sigs;
	int			sig;

	/*
	 * Before any thread starts (the accounts' workers and pools, libmicrohttpd's): every thread
	 * inherits this mask, so SIGINT and SIGTERM stay pending until the main thread takes them
	 * with sigwait - also one sent during start-up, which then stops the gateway as one sent
	 * later does instead of killing it outright.
	 */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	malloc_settings();

	if (!config_defaults(&gw_config, err, sizeof(err)))
	{
		fprintf(stderr, "tablestore-gateway: %s\n", err);
		return 1;
	}
	if (!settings_parse_args(argc, argv, &args, err, sizeof(err)))
	{
		if (err[0])
			fprintf(stderr, "tablestore-gateway: %s\n", err);
		settings_usage(stderr);
		return 2;
	}
	if (args.help)
	{
		settings_usage(stdout);
		return 0;
	}
	if (args.version)
	{
		printf("tablestore-gateway %s (for the tablestore extension %s)\n", TS_VERSION, TS_VERSION);
		return 0;
	}
	if (args.print_sql)
	{
		for (int s = 0; s < SQL__COUNT; s++)
			printf("%s;\n", sql_text((SqlStmt) s));
		return 0;
	}
	if (args.config_file && !config_load_file(&gw_config, args.config_file, err, sizeof(err)))
	{
		fprintf(stderr, "tablestore-gateway: %s\n", err);
		return 2;
	}
	env = getenv("AZURITE_ACCOUNTS");
	if (env && *env && !config_add_accounts(&gw_config, env, err, sizeof(err)))
	{
		fprintf(stderr, "tablestore-gateway: %s\n", err);
		return 2;
	}
	/* flags are applied after the config file, so that they win */
	if (!settings_apply_args(&gw_config, &args, err, sizeof(err)))
	{
		fprintf(stderr, "tablestore-gateway: %s\n", err);
		return 2;
	}
	if (!config_finish(&gw_config, err, sizeof(err)) ||
		(gw_config.oauth_keys && !oauth_load_keys(gw_config.oauth_keys, &gw_config.token_trust, err, sizeof(err))) ||
		(gw_config.oauth_issuers && !oauth_set_issuers(gw_config.oauth_issuers, &gw_config.token_trust, err, sizeof(err))))
	{
		fprintf(stderr, "tablestore-gateway: %s\n", err);
		return 2;
	}

	for (int i = 0; i < gw_config.naccounts; i++)
	{
		if (stop_requested(&sigs, &sig))
			return stop(sig, "during start-up");
		if (!start_account(&gw_config.accounts[i]))
			return 1;
	}
	if (stop_requested(&sigs, &sig))
		return stop(sig, "during start-up");

	if (gw_config.oauth && !gw_config.oauth_keys)
		log_msg("warning: bearer tokens are accepted without checking their signatures (--oauth basic without --oauth-keys): anyone who can reach this gateway can mint one; for development only");

	if (!listener_start(err, sizeof(err)))
	{
		fprintf(stderr, "tablestore-gateway: %s\n", err);
		return 1;
	}
	log_msg("tablestore-gateway %s listening on %s://%s:%d (%d account%s, %d threads, %d connections per account%s)",
			TS_VERSION, gw_config.tls_cert ? "https" : "http", gw_config.listen_addr, gw_config.port, gw_config.naccounts,
			gw_config.naccounts == 1 ? "" : "s", gw_config.threads, gw_config.pool_size,
			gw_config.oauth ? (gw_config.oauth_keys ? ", bearer tokens with RS256 signatures" : ", bearer tokens (basic)") : "");
	for (int i = 0; i < gw_config.naccounts; i++)
		if (gw_config.accounts[i].dev_key)
			log_msg("account %s has the public development key: anyone can sign its requests%s", gw_config.accounts[i].name,
					gw_config.allow_dev_account ? " (allowed by --allow-dev-account)" : " (loopback only)");
	sigwait(&sigs, &sig);
	return stop(sig, "");
}
