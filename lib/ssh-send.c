/*
 * ssh-send.c: the send threads: a host with a large upload is lent to one
 * of them, which encrypts and writes while the loop goes on; see struct
 * ssh_sender.
 */
#include "compat.h"

#include <fcntl.h>
#include <signal.h>


#include "ssh-int.h"

/* Send threads (see struct ssh_sender). */

static void
ssh_wake(int fd)
{
	ssize_t	n = write(fd, "", 1);

	(void)n;	/* full (EAGAIN): a wake-up is already waiting */
}

static void
ssh_drain(int fd)
{
	char	b[64];

	while (read(fd, b, sizeof b) > 0)
		;
}

static void
ssh_sender_give_back(struct ssh_pool *p, struct ssh_conn *c)
{
	pthread_mutex_lock(&p->slock);
	ALLOC_GROW(p->back, p->nback + 1, p->aback);
	p->back[p->nback++] = c;
	pthread_mutex_unlock(&p->slock);
	ssh_wake(p->back_pipe[1]);
}

static void
ssh_sender_pfd(struct ssh_sender *s, size_t *np, int fd, short ev)
{
	ALLOC_GROW(s->pfd, *np + 1, s->apfd);
	s->pfd[*np].fd = fd;
	s->pfd[*np].events = ev;
	s->pfd[*np].revents = 0;
	(*np)++;
}

static void *
ssh_sender_main(void *arg)
{
	struct ssh_sender	*s = arg;
	struct ssh_pool		*p = s->pool;
	size_t			 i, np;
	int			 quit, recall, timeout, dir, failed = 0;
	double			 now, due;

	for (;;) {
		pthread_mutex_lock(&p->slock);
		for (i = 0; i < s->ninbox; i++) {
			ALLOC_GROW(s->own, s->nown + 1, s->aown);
			s->own[s->nown++] = (struct ssh_lent){ s->inbox[i], 0, 1 };
		}
		s->ninbox = 0;
		quit = s->quit;
		recall = p->recall || failed;
		pthread_mutex_unlock(&p->slock);
		if (quit)
			break;
		now = proc_now();
		due = 0;
		np = 0;
		ssh_sender_pfd(s, &np, s->wake[0], POLLIN);
		for (i = 0; i < s->nown;) {
			struct ssh_lent	*l = &s->own[i];
			struct ssh_conn	*c = l->c;
			int		 give = recall || (c->job_deadline > 0 &&
					    now >= c->job_deadline);

			if (!give && (l->fresh || l->revents != 0)) {
				l->fresh = 0;
				give = ssh_conn_up_write(c, &c->lent_err) != 0;
			}
			if (give) {
				ssh_sender_give_back(p, c);
				s->own[i] = s->own[--s->nown];
				continue;
			}
			dir = libssh2_session_block_directions(c->sess);
			ssh_sender_pfd(s, &np, c->fd,
			    (dir & LIBSSH2_SESSION_BLOCK_OUTBOUND) ? POLLIN |
			    POLLOUT : POLLIN);
			if (c->job_deadline > 0 && (due == 0 ||
			    c->job_deadline < due))
				due = c->job_deadline;
			i++;
		}
		timeout = 1000;
		if (due > 0 && due - now < 1.0)
			timeout = (int)((due - now) * 1000.0) + 1;
		/* Cannot wait: give every host back, the pool's thread goes on. */
		if (poll(s->pfd, (nfds_t)np, timeout) < 0 && errno != EINTR)
			failed = 1;
		if (s->pfd[0].revents != 0)
			ssh_drain(s->wake[0]);
		for (i = 1; i < np; i++)
			s->own[i - 1].revents = s->pfd[i].revents;
	}
	return NULL;
}

/*
 * Start the send threads, once a pool: one per CPU up to
 * SSH_SEND_THREADS_MAX (or cfg.send_threads), none on one CPU, where
 * handing over only costs.  They block every signal: signals stay the
 * caller's thread's business.
 */
static void
ssh_pool_senders_start(struct ssh_pool *p)
{
	long		 want = p->cfg.send_threads;
	sigset_t	 all, old;
	size_t		 i;

	p->snd_tried = 1;
	if (want == 0) {
		want = sysconf(_SC_NPROCESSORS_ONLN);
		if (want < 2)
			return;
	}
	if (want > SSH_SEND_THREADS_MAX)
		want = SSH_SEND_THREADS_MAX;
	if (want <= 0 || pipe2(p->back_pipe, O_NONBLOCK | O_CLOEXEC) != 0)
		return;
	pthread_mutex_init(&p->slock, NULL);
	p->snd = xcalloc((size_t)want, sizeof *p->snd);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (i = 0; i < (size_t)want; i++) {
		struct ssh_sender	*s = &p->snd[p->nsnd];

		s->pool = p;
		if (pipe2(s->wake, O_NONBLOCK | O_CLOEXEC) != 0)
			break;
		if (pthread_create(&s->tid, NULL, ssh_sender_main, s) != 0) {
			close(s->wake[0]);
			close(s->wake[1]);
			break;
		}
		p->nsnd++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* Hand c to the least busy send thread; 0 when there is none. */
int
ssh_pool_lend(struct ssh_pool *p, struct ssh_conn *c)
{
	struct ssh_sender	*s;
	size_t			 i;

	if (!p->snd_tried)
		ssh_pool_senders_start(p);
	if (p->nsnd == 0)
		return 0;
	s = &p->snd[0];
	for (i = 1; i < p->nsnd; i++)
		if (p->snd[i].load < s->load)
			s = &p->snd[i];
	c->lent = 1;
	c->lent_to = s;
	c->events = c->revents = 0;
	c->again = 0;
	s->load++;
	p->nlent++;
	pthread_mutex_lock(&p->slock);
	ALLOC_GROW(s->inbox, s->ninbox + 1, s->ainbox);
	s->inbox[s->ninbox++] = c;
	pthread_mutex_unlock(&p->slock);
	ssh_wake(s->wake[1]);
	return 1;
}

/* Take back what the send threads gave back: each steps again at once. */
void
ssh_pool_take_back(struct ssh_pool *p)
{
	size_t	i;

	ssh_drain(p->back_pipe[0]);
	pthread_mutex_lock(&p->slock);
	for (i = 0; i < p->nback; i++) {
		struct ssh_conn	*c = p->back[i];

		c->lent = 0;
		c->lent_to->load--;
		c->lent_to = NULL;
		c->again = 1;
		p->nlent--;
	}
	p->nback = 0;
	pthread_mutex_unlock(&p->slock);
}

/* Get every lent host back, whatever its state (a run ending early). */
void
ssh_pool_recall(struct ssh_pool *p)
{
	size_t	i;

	if (p->nlent == 0)
		return;
	pthread_mutex_lock(&p->slock);
	p->recall = 1;
	pthread_mutex_unlock(&p->slock);
	for (i = 0; i < p->nsnd; i++)
		ssh_wake(p->snd[i].wake[1]);
	while (p->nlent > 0) {
		struct pollfd	pfd = { p->back_pipe[0], POLLIN, 0 };

		(void)poll(&pfd, 1, 100);
		ssh_pool_take_back(p);
	}
	pthread_mutex_lock(&p->slock);
	p->recall = 0;
	pthread_mutex_unlock(&p->slock);
}

void
ssh_pool_senders_stop(struct ssh_pool *p)
{
	size_t	i;

	if (p->nsnd == 0)
		goto out;
	ssh_pool_recall(p);
	pthread_mutex_lock(&p->slock);
	for (i = 0; i < p->nsnd; i++)
		p->snd[i].quit = 1;
	pthread_mutex_unlock(&p->slock);
	for (i = 0; i < p->nsnd; i++) {
		struct ssh_sender	*s = &p->snd[i];

		ssh_wake(s->wake[1]);
		pthread_join(s->tid, NULL);
		close(s->wake[0]);
		close(s->wake[1]);
		free(s->inbox);
		free(s->own);
		free(s->pfd);
	}
out:
	if (p->snd_tried && p->back_pipe[0] >= 0) {
		close(p->back_pipe[0]);
		close(p->back_pipe[1]);
		pthread_mutex_destroy(&p->slock);
	}
	free(p->snd);
	free(p->back);
	p->snd = NULL;
	p->back = NULL;
	p->nsnd = 0;
}
