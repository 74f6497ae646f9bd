/* ssh_session_memory.c - libssh2's allocations for one session, on a list.
 *
 * Each block carries a header in front of the pointer libssh2 sees: the list
 * links and the size.  The header is a union with max_align_t so the pointer
 * handed out keeps malloc's alignment. */
#include <config.h>

#include "ssh_session_memory.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

union ssh_block {
	struct {
		ssh_block *prev, *next;
		size_t size;
	} link;
	max_align_t align;
};

static ssh_block *header_of(void *ptr)
{
	return (ssh_block *)ptr - 1;
}

static void list_insert(ssh_session_memory *m, ssh_block *b, size_t size)
{
	b->link.size = size;
	b->link.prev = NULL;
	b->link.next = m->blocks;
	if (m->blocks) {
		m->blocks->link.prev = b;
	}
	m->blocks = b;
	m->live_blocks++;
	m->live_bytes += size;
}

static void list_remove(ssh_session_memory *m, ssh_block *b)
{
	if (b->link.prev) {
		b->link.prev->link.next = b->link.next;
	} else {
		m->blocks = b->link.next;
	}
	if (b->link.next) {
		b->link.next->link.prev = b->link.prev;
	}
	m->live_blocks--;
	m->live_bytes -= b->link.size;
}

/* libssh2 hands the callbacks a pointer to the session's `abstract`, which
 * holds the ssh_session_memory given to libssh2_session_init_ex(). */
static LIBSSH2_ALLOC_FUNC(block_alloc)
{
	ssh_session_memory *m = *abstract;
	if (count > SIZE_MAX - sizeof(ssh_block)) {
		return NULL;
	}
	ssh_block *b = malloc(sizeof *b + count);
	if (!b) {
		return NULL;
	}
	list_insert(m, b, count);
	return b + 1;
}

static LIBSSH2_FREE_FUNC(block_free)
{
	if (!ptr) {
		return;
	}
	ssh_session_memory *m = *abstract;
	ssh_block *b = header_of(ptr);
	list_remove(m, b);
	free(b);
}

static LIBSSH2_REALLOC_FUNC(block_realloc)
{
	if (!ptr) {
		return block_alloc(count, abstract);
	}
	ssh_session_memory *m = *abstract;
	if (count > SIZE_MAX - sizeof(ssh_block)) {
		return NULL;
	}
	ssh_block *old = header_of(ptr);
	/* Unlinked while realloc may move it; relinked either way, so a failed
	 * realloc leaves the old block on the list, as libssh2 still owns it. */
	list_remove(m, old);
	ssh_block *b = realloc(old, sizeof *b + count);
	if (!b) {
		list_insert(m, old, old->link.size);
		return NULL;
	}
	list_insert(m, b, count);
	return b + 1;
}

LIBSSH2_SESSION *ssh_session_memory_open(ssh_session_memory *m)
{
	m->blocks = NULL;
	m->live_blocks = 0;
	m->live_bytes = 0;
	return libssh2_session_init_ex(block_alloc, block_free, block_realloc, m);
}

size_t ssh_session_memory_release(ssh_session_memory *m, size_t *bytes)
{
	size_t n = m->live_blocks;
	if (bytes) {
		*bytes = m->live_bytes;
	}
	while (m->blocks) {
		ssh_block *b = m->blocks;
		m->blocks = b->link.next;
		free(b);
	}
	m->live_blocks = 0;
	m->live_bytes = 0;
	return n;
}
