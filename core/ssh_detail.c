/* ssh_detail.c - a Prometheus node's one SSH poll (ssh_detail.h). */
#include <config.h>

#include "ssh_detail.h"

#include <stdlib.h>

#include "xalloc.h"

ssh_detail *ssh_detail_new(const char *host, double asked_at)
{
	ssh_detail *d = xmalloc(sizeof *d);
	d->state = SSH_DETAIL_POLLING;
	d->asked_at = asked_at;
	d->done_at = 0;
	node_init(&d->node, host);
	return d;
}

void ssh_detail_free(ssh_detail *d)
{
	free(d);
}

void ssh_detail_finish(ssh_detail *d, double now)
{
	if (d->state != SSH_DETAIL_DONE) {
		d->state = SSH_DETAIL_DONE;
		d->done_at = now;
	}
}

bool ssh_detail_answered(const ssh_detail *d)
{
	return d && d->state == SSH_DETAIL_DONE && node_answered(&d->node);
}

bool ssh_detail_can_ask(const ssh_detail *d)
{
	return !d || d->state == SSH_DETAIL_DONE;
}
