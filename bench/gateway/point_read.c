/*
 * point_read.c - latency of one signed request repeated over keep-alive connections (no SDK):
 * the HTTP side of bench/run.sh compare's gateway overhead measure.
 *
 *   cc -O2 -o /tmp/point_read bench/gateway/point_read.c -lcrypto -lpthread
 *   /tmp/point_read PORT PATH SECONDS CONNECTIONS
 * Each connection sends the same Shared Key signed GET (development account) back to back and
 * times each answer; prints requests/s and p50/p90/p99 latency in ms.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAXS 2000000
static char request[4096];
static int port, seconds;
static double *lat;
static long nlat;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void *
worker(void *arg)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
	int			s = socket(AF_INET, SOCK_STREAM, 0),
				one = 1;
	double		end = now() + seconds * 1000.0;
	char		buf[65536];
	double	   *mine = malloc(sizeof(double) * MAXS);
	long		n = 0;

	(void) arg;
	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(s, (struct sockaddr *) &sa, sizeof(sa)) != 0)
	{
		perror("connect");
		exit(1);
	}
	while (now() < end && n < MAXS)
	{
		double		t0 = now();
		size_t		got = 0;
		long		need = -1;

		if (write(s, request, strlen(request)) < 0)
			exit(1);
		for (;;)
		{
			ssize_t		r = read(s, buf + got, sizeof(buf) - got - 1);
			char	   *hend,
					   *cl;

			if (r <= 0)
			{
				fprintf(stderr, "connection closed\n");
				exit(1);
			}
			got += (size_t) r;
			buf[got] = '\0';
			hend = strstr(buf, "\r\n\r\n");
			if (hend && need < 0)
			{
				cl = strcasestr(buf, "Content-Length:");
				need = (hend - buf) + 4 + (cl ? atol(cl + 15) : 0);
				if (strncmp(buf, "HTTP/1.1 200", 12) != 0)
				{
					fprintf(stderr, "unexpected answer: %.200s\n", buf);
					exit(1);
				}
			}
			if (need >= 0 && (long) got >= need)
				break;
		}
		mine[n++] = now() - t0;
	}
	pthread_mutex_lock(&mu);
	memcpy(lat + nlat, mine, sizeof(double) * (size_t) (nlat + n > MAXS ? MAXS - nlat : n));
	nlat += nlat + n > MAXS ? MAXS - nlat : n;
	pthread_mutex_unlock(&mu);
	free(mine);
	close(s);
	return NULL;
}

static int
cmp(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	const char *key_b64 = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";
	unsigned char key[64],
				mac[32];
	unsigned int ml;
	char		date[64],
				sts[2048],
				sig[64];
	time_t		t = time(NULL);
	int			conns;
	pthread_t	th[64];

	if (argc < 5)
	{
		fprintf(stderr, "usage: point_read PORT PATH SECONDS CONNECTIONS\n");
		return 2;
	}
	port = atoi(argv[1]);
	seconds = atoi(argv[3]);
	conns = atoi(argv[4]);
	EVP_DecodeBlock(key, (const unsigned char *) key_b64, (int) strlen(key_b64));
	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S GMT", gmtime(&t));
	snprintf(sts, sizeof(sts), "GET\n\n\n%s\n/devstoreaccount1%s", date, argv[2]);
	HMAC(EVP_sha256(), key, 64, (unsigned char *) sts, strlen(sts), mac, &ml);
	EVP_EncodeBlock((unsigned char *) sig, mac, 32);
	snprintf(request, sizeof(request),
			 "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nx-ms-date: %s\r\nx-ms-version: 2019-02-02\r\n"
			 "Accept: application/json;odata=minimalmetadata\r\nAuthorization: SharedKey devstoreaccount1:%s\r\n\r\n",
			 argv[2], port, date, sig);
	lat = malloc(sizeof(double) * MAXS);
	for (int i = 0; i < conns; i++)
		pthread_create(&th[i], NULL, worker, NULL);
	for (int i = 0; i < conns; i++)
		pthread_join(th[i], NULL);
	qsort(lat, (size_t) nlat, sizeof(double), cmp);
	printf("%ld requests in %d s: %.0f/s; latency ms p50 %.3f p90 %.3f p99 %.3f\n", nlat, seconds,
		   nlat / (double) seconds, lat[nlat / 2], lat[nlat * 9 / 10], lat[nlat * 99 / 100]);
	return 0;
}
