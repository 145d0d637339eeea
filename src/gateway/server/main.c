/*
 * main.c - tablestore-gateway: the flags and the configuration read (settings.c's table, config.c),
 * the accounts' databases, pools and workers, signals.
 *
 *   tablestore-gateway --port N --dsn 'CONNINFO'    foreground, 127.0.0.1:N, development account
 *   tablestore-gateway --config FILE                settings and accounts from a file
 * Signals (blocked before any thread starts, taken by one thread with sigwait):
 *   SIGINT, SIGTERM  stop: no new connections, requests in flight finish, pools close; exit 0.
 *                    During start-up (nothing is served yet) it stops at once, whatever it waits
 *                    for (a database that does not answer).
 *   SIGQUIT          immediate stop, as PostgreSQL's: logged, then exit 2 without draining.
 *   SIGHUP           logged and ignored: the gateway has no configuration to reload (a restart
 *                    reads it), and a closed terminal must not take it down.
 */
#include "account_db.h"
#include "config.h"
#include "gateway.h"
#include "listener.h"
#include "pool.h"
#include "settings.h"
#include "worker.h"

#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>
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
	if (n > 0 && !service_props_preload(a))
		log_msg("account %s: its service properties (CORS rules) could not be read; the first preflight reads them", a->name);
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

/* The signal thread and the main thread: the stop signal once taken, and whether start-up is over. */
static pthread_mutex_t sig_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t sig_cv = PTHREAD_COND_INITIALIZER;
static int	stop_signal;
static bool started;

/*
 * The only thread that takes the gateway's signals (all threads have them blocked). SIGHUP is
 * logged and ignored; SIGQUIT ends the process at once; SIGINT/SIGTERM end it at once during
 * start-up (no client was served, nothing to drain: whatever it waits for, a database that never
 * answers included) and afterwards hand the stop to the main thread.
 */
static void *
signal_main(void *arg)
{
	const sigset_t *sigs = arg;

	for (;;)
	{
		int			sig = 0;
		bool		up;

		if (sigwait(sigs, &sig) != 0)
			continue;
		if (sig == SIGHUP)
		{
			log_msg("signal %d (SIGHUP): ignored (no configuration is reloaded: restart the gateway to read it; SIGTERM stops it)", sig);
			continue;
		}
		if (sig == SIGQUIT)
		{
			log_msg("signal %d (SIGQUIT): immediate stop, requests in flight are dropped", sig);
			_exit(2);
		}
		pthread_mutex_lock(&sig_mu);
		up = started;
		if (up && stop_signal == 0)
		{
			stop_signal = sig;
			pthread_cond_signal(&sig_cv);
		}
		pthread_mutex_unlock(&sig_mu);
		if (!up)
		{
			log_msg("signal %d during start-up: stopping (nothing was served yet)", sig);
			_exit(0);
		}
	}
	return NULL;
}

/* The main thread's wait for SIGINT or SIGTERM, once start-up is over. */
static int
wait_for_stop(void)
{
	int			sig;

	pthread_mutex_lock(&sig_mu);
	started = true;
	while (stop_signal == 0)
		pthread_cond_wait(&sig_cv, &sig_mu);
	sig = stop_signal;
	pthread_mutex_unlock(&sig_mu);
	return sig;
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
	static sigset_t sigs;
	pthread_t	sig_thread;

	/*
	 * Before any thread starts (the accounts' workers and pools, libmicrohttpd's): every thread
	 * inherits this mask, so the signals wait for the signal thread (signal_main) - also one sent
	 * during start-up, which then stops the gateway instead of killing it outright.
	 */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	sigaddset(&sigs, SIGQUIT);
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

	if (pthread_create(&sig_thread, NULL, signal_main, &sigs) != 0)
	{
		fprintf(stderr, "tablestore-gateway: cannot start the signal thread\n");
		return 1;
	}
	for (int i = 0; i < gw_config.naccounts; i++)
		if (!start_account(&gw_config.accounts[i]))
			return 1;

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
	return stop(wait_for_stop(), "");
}
