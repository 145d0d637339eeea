/*
 * main.c - tablestore-gateway: flags, configuration, the accounts' databases, pools and workers,
 * signals.
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
#include "worker.h"

#include <getopt.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
usage(FILE *f)
{
	fprintf(f,
			"tablestore-gateway %s - the Azure Table service REST protocol over PostgreSQL (tablestore)\n"
			"\n"
			"usage: tablestore-gateway [options]\n"
			"\n"
			"  --dsn CONNINFO            libpq connection string for accounts without their own\n"
			"  --node NAME=CONNINFO      a node of distributed tables, by the coordinator's server name:\n"
			"                            one-partition calls go straight to it (repeat per node)\n"
			"  --config FILE             config file (key = value, [account NAME] sections; see README)\n"
			"  --listen ADDR             address to listen on (default 127.0.0.1)\n"
			"  --port N                  port (default 10002)\n"
			"  --threads N               HTTP worker threads (default 4; 0 = a thread per connection)\n"
			"  --pool N                  PostgreSQL connections per account (default 4)\n"
			"  --queue N                 requests that may wait for a connection before 503 (default 256)\n"
			"  --queue-timeout MS        longest wait for a connection before 503 (default 10000)\n"
			"  --timeout S               idle client connection timeout in seconds (default 30)\n"
			"  --request-timeout S       longest time to receive one request body (default 60)\n"
			"  --statement-timeout MS    per SQL call (default 30000; 0 = none)\n"
			"  --max-connections N       client connections (default 1000)\n"
			"  --header-limit BYTES      request line + headers per connection (default 32768)\n"
			"  --body-memory MB          request bodies held at once, all connections (default 64)\n"
			"  --response-memory MB      answers not yet sent, all connections (default 256)\n"
			"  --account-share PCT       of each of the two, the room kept for each account (default 10)\n"
			"  --credential-share PCT    of an account's kept room, the part its SASes and tokens leave to its key (default 50)\n"
			"  --send-timeout S          an answer the client reads nothing of for S seconds is dropped (default 10)\n"
			"  --per-ip-connections N    client connections from one address (default 128; 0 = no limit)\n"
			"  --log quiet|requests|debug  (default requests: one line per request on stderr)\n"
			"  --cert FILE --key FILE    serve HTTPS with this PEM certificate (chain) and private key\n"
			"  --oauth basic             accept bearer tokens (HTTPS only): aud, iss, nbf, exp checked\n"
			"  --oauth-keys FILE         with --oauth: RS256 signatures verified with these PEM public keys\n"
			"  --oauth-issuers LIST      with --oauth-keys: the issuers (tenants) trusted, comma-separated\n"
			"  --allow-dev-account       allow the public development key with a non-loopback --listen,\n"
			"                            --cert or --oauth (anyone can sign requests with it)\n"
			"  --print-sql               print the prepared statements and exit\n"
			"  --help, --version\n"
			"\n"
			"Accounts: AZURITE_ACCOUNTS=\"name:key1[:key2];...\" and [account NAME] sections; without\n"
			"any, devstoreaccount1 with the well-known development key. Each account has a database of\n"
			"its own: its dsn, else --dsn's database for the first account, <database>_<account> for the\n"
			"others (created when missing).\n",
			TS_VERSION);
}

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
	static const struct option opts[] = {
		{"dsn", required_argument, NULL, 'd'},
		{"node", required_argument, NULL, 'N'},
		{"config", required_argument, NULL, 'c'},
		{"listen", required_argument, NULL, 'l'},
		{"port", required_argument, NULL, 'p'},
		{"threads", required_argument, NULL, 't'},
		{"pool", required_argument, NULL, 'P'},
		{"queue", required_argument, NULL, 'q'},
		{"queue-timeout", required_argument, NULL, 'Q'},
		{"timeout", required_argument, NULL, 'T'},
		{"request-timeout", required_argument, NULL, 'R'},
		{"statement-timeout", required_argument, NULL, 'S'},
		{"max-connections", required_argument, NULL, 'm'},
		{"header-limit", required_argument, NULL, 'H'},
		{"body-memory", required_argument, NULL, 'B'},
		{"response-memory", required_argument, NULL, 'M'},
		{"account-share", required_argument, NULL, 'a'},
		{"credential-share", required_argument, NULL, 'k'},
		{"send-timeout", required_argument, NULL, 's'},
		{"per-ip-connections", required_argument, NULL, 'i'},
		{"allow-dev-account", no_argument, NULL, 'A'},
		{"log", required_argument, NULL, 'L'},
		{"cert", required_argument, NULL, 'C'},
		{"key", required_argument, NULL, 'K'},
		{"oauth", required_argument, NULL, 'O'},
		{"oauth-keys", required_argument, NULL, 'J'},
		{"oauth-issuers", required_argument, NULL, 'I'},
		{"print-sql", no_argument, NULL, 'x'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'v'},
		{NULL, 0, NULL, 0}
	};
	/* flags are applied after the config file, so that they win */
	struct
	{
		const char *key;
		const char *value;
	}			flagset[32];
	int			nflags = 0;
	const char *config_file = NULL;
	char		err[512];
	const char *env;
	static sigset_t sigs;
	pthread_t	sig_thread;
	int			c;

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

	config_defaults(&gw_config);
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1)
	{
		const char *key = NULL;

		switch (c)
		{
			case 'd':
				key = "dsn";
				break;
			case 'N':
				key = "node";
				break;
			case 'c':
				config_file = optarg;
				break;
			case 'l':
				key = "listen";
				break;
			case 'p':
				key = "port";
				break;
			case 't':
				key = "threads";
				break;
			case 'P':
				key = "pool_size";
				break;
			case 'q':
				key = "queue_max";
				break;
			case 'Q':
				key = "queue_timeout_ms";
				break;
			case 'T':
				key = "connection_timeout_s";
				break;
			case 'R':
				key = "request_timeout_s";
				break;
			case 'S':
				key = "statement_timeout_ms";
				break;
			case 'm':
				key = "max_connections";
				break;
			case 'H':
				key = "header_limit";
				break;
			case 'B':
				key = "body_memory_mb";
				break;
			case 'M':
				key = "response_memory_mb";
				break;
			case 'a':
				key = "account_share_pct";
				break;
			case 'k':
				key = "credential_share_pct";
				break;
			case 's':
				key = "send_timeout_s";
				break;
			case 'i':
				key = "per_ip_connections";
				break;
			case 'A':
				key = "allow_dev_account";
				optarg = "on";
				break;
			case 'L':
				key = "log";
				break;
			case 'C':
				key = "tls_cert";
				break;
			case 'K':
				key = "tls_key";
				break;
			case 'O':
				key = "oauth";
				break;
			case 'J':
				key = "oauth_keys";
				break;
			case 'I':
				key = "oauth_issuers";
				break;
			case 'x':
				for (int s = 0; s < SQL__COUNT; s++)
					printf("%s;\n", sql_text((SqlStmt) s));
				return 0;
			case 'h':
				usage(stdout);
				return 0;
			case 'v':
				printf("tablestore-gateway %s (for the tablestore extension %s)\n", TS_VERSION, TS_VERSION);
				return 0;
			default:
				usage(stderr);
				return 2;
		}
		if (key && nflags < 32)
		{
			flagset[nflags].key = key;
			flagset[nflags].value = optarg;
			nflags++;
		}
	}
	if (optind < argc)
	{
		fprintf(stderr, "tablestore-gateway: unexpected argument \"%s\"\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (config_file && !config_load_file(&gw_config, config_file, err, sizeof(err)))
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
	for (int i = 0; i < nflags; i++)
		if (!config_set(&gw_config, flagset[i].key, flagset[i].value, err, sizeof(err)))
		{
			fprintf(stderr, "tablestore-gateway: --%s: %s\n", flagset[i].key, err);
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
