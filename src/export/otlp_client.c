// SPDX-License-Identifier: Apache-2.0
/* The OTLP sender: callers queue serialized requests and return at once; one thread
 * sends them in order, retrying transient failures with exponential backoff and jitter.
 * The queue is bounded in requests and in bytes (the oldest waiting request is dropped
 * when it is full), so a collector that is slow or down costs bounded memory, what it
 * costs in samples and seconds of profile is counted and said once it is back, and it
 * is reached on a new connection without a restart. An attempt that timed out after its
 * body went out may have been taken: it is sent again once, not more, so a collector
 * that answers late stores a request twice at most, and each such case is counted; the
 * next attempts get longer deadlines (otlp_deadline.h), so it is caught up with. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "export/curl_lib.h"

#include "export/otlp_client.h"
#include "export/otlp_deadline.h"
#include "export/otlp_exchange.h"
#include "util/clock.h"
#include "util/crash.h"
#include "util/log.h"

#define NSEC_PER_MS 1000000ull
#define DEFAULT_BACKOFF_INITIAL_MS 1000
#define DEFAULT_BACKOFF_MAX_MS 30000
#define DEFAULT_RETRY_MAX_MS 300000
/* Repeated messages (drops, the same failure again) are logged at most this often. */
#define LOG_INTERVAL_NS (10000 * NSEC_PER_MS)

struct item {
	void *buf;
	size_t len;
	struct otlp_item_meta meta;
	struct item *next;
};

struct otlp_client {
	struct otlp_client_opts opts; /* deep copy */
	struct otlp_exchange *x;      /* used by the sender thread only */
	pthread_t thread;
	bool thread_started;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	/* Everything below is under lock, except abort_at (atomic: read by the transfer). */
	struct item *head, *tail;
	bool closing;
	uint64_t abort_at; /* close deadline, CLOCK_MONOTONIC ns; UINT64_MAX until close */
	struct otlp_client_stats st;
	uint64_t drops_unlogged, drop_logged_at;
	/* What was dropped since the collector last accepted a request, said when it does. */
	uint64_t outage_reqs, outage_samples, outage_span_ns;
	uint64_t dups_unlogged, dup_logged_at;
	/* Sender thread only. */
	unsigned backoff_ms; /* the next retry's ceiling; back to the initial value on success */
	unsigned failures;   /* consecutive failed attempts */
	struct otlp_deadline deadline;
	uint64_t fail_logged_at;
	char fail_logged[sizeof(((struct otlp_result *)0)->what) +
			 sizeof(((struct otlp_result *)0)->message) + 8];
	unsigned seed;
};

static void free_item(struct item *it)
{
	if (!it)
		return;
	free(it->buf);
	free(it);
}

/* Under lock: drops counted in bulk, one line per LOG_INTERVAL_NS at most. */
static void log_drops(struct otlp_client *c, bool force)
{
	uint64_t now = now_ns();

	if (!c->drops_unlogged || (!force && now - c->drop_logged_at < LOG_INTERVAL_NS))
		return;
	pr_warn("OTLP: dropped %llu request(s): queue full (%u requests or %llu KiB), collector "
		"at %s slow or unreachable (%llu dropped in all)",
		(unsigned long long)c->drops_unlogged, c->opts.max_queue,
		(unsigned long long)(c->opts.max_queue_bytes >> 10), c->opts.url,
		(unsigned long long)c->st.dropped);
	c->drops_unlogged = 0;
	c->drop_logged_at = now;
}

/* Under lock: it is given up, for the reason whose counter is kind. */
static void count_drop(struct otlp_client *c, const struct item *it, uint64_t *kind)
{
	c->st.dropped++;
	(*kind)++;
	c->st.dropped_samples += it->meta.samples;
	c->st.dropped_span_ns += it->meta.span_ns;
	c->outage_reqs++;
	c->outage_samples += it->meta.samples;
	c->outage_span_ns += it->meta.span_ns;
}

/* Under lock: takes the oldest waiting request out of the queue. */
static struct item *queue_pop(struct otlp_client *c)
{
	struct item *it = c->head;

	if (!it)
		return NULL;
	c->head = it->next;
	if (!c->head)
		c->tail = NULL;
	c->st.queued--;
	c->st.queued_bytes -= it->len;
	return it;
}

int otlp_client__submit(struct otlp_client *c, void *buf, size_t len)
{
	return otlp_client__submit_meta(c, buf, len, NULL);
}

int otlp_client__submit_meta(struct otlp_client *c, void *buf, size_t len,
			     const struct otlp_item_meta *meta)
{
	struct item *it = NULL, *old, *dropped = NULL;
	int err = 0;

	pthread_mutex_lock(&c->lock);
	c->st.submitted++;
	if (c->closing) {
		err = -ESHUTDOWN;
	} else if (len > OTLP_MAX_REQUEST_BYTES) {
		c->st.dropped++;
		c->st.dropped_rejected++;
		err = -EMSGSIZE;
	} else if (!(it = malloc(sizeof(*it)))) {
		c->st.dropped++;
		err = -ENOMEM;
	}
	if (err)
		goto out;
	*it = (struct item){.buf = buf, .len = len};
	if (meta)
		it->meta = *meta;
	/* A request larger than the byte bound alone still waits: it is within the
	 * specification's limit, and the queue is empty by then. */
	while (c->head && (c->st.queued >= c->opts.max_queue ||
			   c->st.queued_bytes + len > c->opts.max_queue_bytes)) {
		old = queue_pop(c);
		count_drop(c, old, &c->st.dropped_queue_full);
		c->drops_unlogged++;
		old->next = dropped;
		dropped = old;
	}
	if (dropped)
		log_drops(c, false);
	if (c->tail)
		c->tail->next = it;
	else
		c->head = it;
	c->tail = it;
	c->st.queued_bytes += len;
	if (++c->st.queued > c->st.queued_max)
		c->st.queued_max = c->st.queued;
	buf = NULL;
	pthread_cond_signal(&c->wake);
out:
	pthread_mutex_unlock(&c->lock);
	if (err == -EMSGSIZE)
		pr_warn("OTLP: a request of %zu bytes is over the %u-byte limit; dropped", len,
			OTLP_MAX_REQUEST_BYTES);
	while ((old = dropped)) {
		dropped = old->next;
		free_item(old);
	}
	free(buf);
	return err;
}

void otlp_client__stats(struct otlp_client *c, struct otlp_client_stats *st)
{
	pthread_mutex_lock(&c->lock);
	*st = c->st;
	pthread_mutex_unlock(&c->lock);
}

/* Next request to send, or NULL when closing and the queue is empty or the deadline has
 * passed. The request leaves the queue; the thread owns it from here on. */
static struct item *next_item(struct otlp_client *c)
{
	struct item *it = NULL;

	pthread_mutex_lock(&c->lock);
	while (!c->head && !c->closing)
		pthread_cond_wait(&c->wake, &c->lock);
	if (c->head && now_ns() < c->abort_at) {
		it = queue_pop(c);
		c->st.in_flight = true;
	}
	pthread_mutex_unlock(&c->lock);
	return it;
}

/* Sleeps ms, or less if close's deadline comes first. Returns false when it did. */
static bool backoff_wait(struct otlp_client *c, unsigned ms)
{
	uint64_t until = now_ns() + ms * NSEC_PER_MS;
	struct timespec ts;
	bool cut;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		cut = c->abort_at <= until;
		if (now_ns() >= (cut ? c->abort_at : until))
			break;
		/* The condition variable runs on CLOCK_MONOTONIC (see otlp_client__new). */
		ts.tv_sec = (cut ? c->abort_at : until) / 1000000000ull;
		ts.tv_nsec = (cut ? c->abort_at : until) % 1000000000ull;
		pthread_cond_timedwait(&c->wake, &c->lock, &ts);
	}
	pthread_mutex_unlock(&c->lock);
	return !cut;
}

/* "Equal jitter": half of the current ceiling plus a random part of the other half, so
 * many agents that lost the same collector do not all come back at the same moment. A
 * delay the server asked for (Retry-After, RetryInfo) is a floor. */
static unsigned next_delay(struct otlp_client *c, const struct otlp_result *r)
{
	unsigned ceil = c->backoff_ms, d = ceil / 2 + rand_r(&c->seed) % (ceil / 2 + 1);

	c->backoff_ms = ceil >= c->opts.backoff_max_ms / 2 ? c->opts.backoff_max_ms : ceil * 2;
	if (r->retry_after_ms > d)
		d = r->retry_after_ms;
	return d;
}

/* One line per failure, but the same failure again is logged at most every
 * LOG_INTERVAL_NS, so a collector that is down for an hour does not fill the log. */
static void log_failure(struct otlp_client *c, const struct otlp_result *r, const char *then,
			bool dropped)
{
	char line[sizeof(c->fail_logged)];
	uint64_t now = now_ns();

	snprintf(line, sizeof(line), "%s%s%s", r->what, r->message[0] ? ": " : "", r->message);
	if (!dropped && !strcmp(line, c->fail_logged) && now - c->fail_logged_at < LOG_INTERVAL_NS)
		return;
	pr_warn("OTLP: %s: %s (%s)", c->opts.url, line, then);
	memcpy(c->fail_logged, line, sizeof(line));
	c->fail_logged_at = now;
}

static void log_accepted(struct otlp_client *c, const struct otlp_result *r)
{
	uint64_t reqs, samples, span;

	pthread_mutex_lock(&c->lock);
	reqs = c->outage_reqs;
	samples = c->outage_samples;
	span = c->outage_span_ns;
	c->outage_reqs = c->outage_samples = c->outage_span_ns = 0;
	pthread_mutex_unlock(&c->lock);
	if (c->failures && reqs)
		pr_warn("OTLP: %s accepts requests again, after %u failed attempt(s); %llu "
			"request(s) were dropped meanwhile: %llu samples, %.1f s of profile",
			c->opts.url, c->failures, (unsigned long long)reqs,
			(unsigned long long)samples, span / 1e9);
	else if (c->failures)
		pr_info("OTLP: %s accepts requests again, after %u failed attempt(s)", c->opts.url,
			c->failures);
	c->failures = 0;
	c->backoff_ms = c->opts.backoff_initial_ms;
	c->fail_logged[0] = 0;
	if (r->partial && r->rejected)
		pr_warn("OTLP: the collector rejected %lld profile(s): %s", (long long)r->rejected,
			r->message[0] ? r->message : "(no message)");
	else if (r->partial)
		pr_warn("OTLP: the collector says: %s", r->message);
}

enum outcome { OUT_SENT, OUT_REJECTED, OUT_EXPIRED, OUT_CLOSED, OUT_TIMEOUT };

static void finish(struct otlp_client *c, enum outcome o, const struct otlp_result *r,
		   const struct item *it)
{
	pthread_mutex_lock(&c->lock);
	c->st.in_flight = false;
	if (o == OUT_SENT) {
		c->st.sent++;
		c->st.partial_success += r->partial;
		c->st.rejected_profiles += r->partial && r->rejected > 0 ? r->rejected : 0;
	} else {
		count_drop(c, it,
			   o == OUT_REJECTED  ? &c->st.dropped_rejected
			   : o == OUT_EXPIRED ? &c->st.dropped_expired
			   : o == OUT_TIMEOUT ? &c->st.dropped_timeout
					      : &c->st.dropped_at_close);
	}
	pthread_mutex_unlock(&c->lock);
}

/* A request accepted after an attempt that timed out once its body was sent: counted,
 * and said at most every LOG_INTERVAL_NS with how many since. */
static void count_duplicate(struct otlp_client *c)
{
	uint64_t now = now_ns(), n;

	pthread_mutex_lock(&c->lock);
	c->st.duplicates++;
	n = ++c->dups_unlogged;
	if (c->dup_logged_at && now - c->dup_logged_at < LOG_INTERVAL_NS) {
		n = 0;
	} else {
		c->dups_unlogged = 0;
		c->dup_logged_at = now;
	}
	pthread_mutex_unlock(&c->lock);
	if (n)
		pr_warn("OTLP: %llu request(s) accepted after an attempt that timed out once sent: "
			"%s may have stored them twice (raise --timeout for a slow collector)",
			(unsigned long long)n, c->opts.url);
}

/* Attempts one request until it is accepted, rejected, too old, or close cuts it off. */
static enum outcome attempt_until_done(struct otlp_client *c, const uint8_t *wire, size_t len,
				       struct otlp_result *r)
{
	uint64_t first = now_ns();
	bool timed_out = false;
	unsigned delay;

	for (;;) {
		unsigned limit = otlp_deadline__for(&c->deadline, len);
		uint64_t start = now_ns();

		otlp_exchange__send(c->x, wire, len, limit, r);
		if (r->maybe_taken)
			otlp_deadline__timed_out(&c->deadline, limit);
		if (r->verdict == OTLP_ACCEPTED) {
			otlp_deadline__answered(&c->deadline, len,
						(unsigned)((now_ns() - start) / NSEC_PER_MS));
			log_accepted(c, r);
			if (timed_out)
				count_duplicate(c);
			return OUT_SENT;
		}
		c->failures++;
		pthread_mutex_lock(&c->lock);
		c->st.failed_attempts++;
		pthread_mutex_unlock(&c->lock);
		if (r->verdict == OTLP_REJECTED) {
			log_failure(c, r, "not retryable, request dropped", true);
			return OUT_REJECTED;
		}
		if (r->maybe_taken && timed_out) {
			log_failure(c, r, "timed out twice once sent, request dropped", true);
			return OUT_TIMEOUT;
		}
		timed_out |= r->maybe_taken;
		if (now_ns() >= __atomic_load_n(&c->abort_at, __ATOMIC_RELAXED))
			return OUT_CLOSED;
		delay = next_delay(c, r);
		if ((now_ns() - first) / NSEC_PER_MS + delay > c->opts.retry_max_ms) {
			log_failure(c, r, "retried too long, request dropped", true);
			return OUT_EXPIRED;
		}
		log_failure(c, r, "will retry", false);
		if (!backoff_wait(c, delay))
			return OUT_CLOSED;
	}
}

/* Frames (and compresses) a request once, frees its serialized form so only the wire
 * form stays in memory during retries, and sends it. */
static void deliver(struct otlp_client *c, struct item *it)
{
	struct otlp_result r = {0};
	uint8_t *wire;
	size_t wire_len;
	int err;

	err = otlp_exchange__frame(&c->opts, it->buf, it->len, &wire, &wire_len);
	if (err) {
		pr_warn("OTLP: could not compress a request: %s; dropped", strerror(-err));
		finish(c, OUT_REJECTED, &r, it);
		return;
	}
	pthread_mutex_lock(&c->lock);
	c->st.bytes_raw += it->len;
	c->st.bytes_sent += wire_len;
	pthread_mutex_unlock(&c->lock);
	free(it->buf);
	it->buf = NULL;
	finish(c, attempt_until_done(c, wire, wire_len, &r), &r, it);
	free(wire);
}

static void *sender_main(void *arg)
{
	struct otlp_client *c = arg;
	struct item *it;

	pthread_setname_np(pthread_self(), "ebprof-otlp"); /* for ps and bench/ */
	while ((it = next_item(c))) {
		deliver(c, it);
		free_item(it);
	}
	return NULL;
}

static int copy_str(char **dst, const char *src)
{
	*dst = src ? strdup(src) : NULL;
	return src && !*dst ? -ENOMEM : 0;
}

static int copy_opts(struct otlp_client_opts *dst, const struct otlp_client_opts *src)
{
	char *ua = NULL;
	size_t i;
	int err;

	*dst = *src;
	dst->url = dst->ca_file = NULL;
	dst->headers = NULL;
	dst->n_headers = 0;
	dst->user_agent = NULL;
	err = copy_str(&dst->url, src->url);
	err = err ?: copy_str(&dst->ca_file, src->ca_file);
	err = err ?: copy_str(&ua, src->user_agent ? src->user_agent : "ebprof");
	dst->user_agent = ua;
	if (!err && src->n_headers && !(dst->headers = calloc(src->n_headers, sizeof(char *))))
		err = -ENOMEM;
	for (i = 0; !err && i < src->n_headers; i++) {
		err = copy_str(&dst->headers[i], src->headers[i]);
		dst->n_headers = i + 1;
	}
	dst->backoff_initial_ms = src->backoff_initial_ms ?: DEFAULT_BACKOFF_INITIAL_MS;
	dst->backoff_max_ms = src->backoff_max_ms ?: DEFAULT_BACKOFF_MAX_MS;
	if (dst->backoff_max_ms < dst->backoff_initial_ms)
		dst->backoff_max_ms = dst->backoff_initial_ms;
	dst->retry_max_ms = src->retry_max_ms ?: DEFAULT_RETRY_MAX_MS;
	dst->max_queue_bytes = src->max_queue_bytes ?: OTLP_DEFAULT_QUEUE_BYTES;
	return err;
}

static void release_copy(struct otlp_client_opts *o)
{
	free((char *)o->user_agent);
	o->user_agent = NULL;
	otlp_client_opts__release(o);
}

/* The sender thread takes no signals: SIGINT and SIGTERM stay with the agent's main
 * thread, and a SIGPIPE from a dead connection is not delivered to anyone. */
static int start_thread(struct otlp_client *c)
{
	sigset_t all, old;
	int err;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = crash__thread_create(&c->thread, sender_main, c);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	c->thread_started = !err;
	return -err;
}

static void client_free(struct otlp_client *c)
{
	struct item *it;

	while ((it = c->head)) {
		c->head = it->next;
		free_item(it);
	}
	otlp_exchange__free(c->x);
	pthread_cond_destroy(&c->wake);
	pthread_mutex_destroy(&c->lock);
	release_copy(&c->opts);
	free(c);
}

struct otlp_client *otlp_client__new(const struct otlp_client_opts *opts)
{
	struct otlp_client *c;
	pthread_condattr_t ca;
	int err;

	if (!opts->url || !opts->max_queue) {
		pr_err("OTLP: no endpoint URL or a zero queue size");
		return NULL;
	}
	if (!curl_lib__get())
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		goto nomem;
	pthread_mutex_init(&c->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&c->wake, &ca);
	pthread_condattr_destroy(&ca);
	c->abort_at = UINT64_MAX;
	if (getrandom(&c->seed, sizeof(c->seed), GRND_NONBLOCK) != sizeof(c->seed))
		c->seed = (unsigned)now_ns();
	if (copy_opts(&c->opts, opts) || !(c->x = otlp_exchange__new(&c->opts, &c->abort_at)))
		goto nomem;
	c->backoff_ms = c->opts.backoff_initial_ms;
	otlp_deadline__init(&c->deadline, c->opts.timeout_ms);
	err = start_thread(c);
	if (err) {
		pr_err("OTLP: cannot start the sender thread: %s", strerror(-err));
		client_free(c);
		return NULL;
	}
	return c;
nomem:
	pr_err("OTLP: out of memory");
	if (c)
		client_free(c);
	return NULL;
}

int otlp_client__close(struct otlp_client *c, unsigned deadline_ms, struct otlp_client_stats *final)
{
	struct item *it;
	int err;

	if (!c)
		return 0;
	pthread_mutex_lock(&c->lock);
	c->closing = true;
	__atomic_store_n(&c->abort_at, now_ns() + deadline_ms * NSEC_PER_MS, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&c->wake);
	pthread_mutex_unlock(&c->lock);
	if (c->thread_started)
		pthread_join(c->thread, NULL);

	/* The thread is gone: what is still queued was cut off by the deadline. */
	while ((it = queue_pop(c))) {
		count_drop(c, it, &c->st.dropped_at_close);
		free_item(it);
	}
	log_drops(c, true);
	if (c->st.dropped_at_close)
		pr_warn("OTLP: %llu request(s) not delivered by the %u ms close deadline",
			(unsigned long long)c->st.dropped_at_close, deadline_ms);
	err = c->st.dropped_at_close ? -ETIMEDOUT : 0;
	if (final)
		*final = c->st;
	client_free(c);
	return err;
}
