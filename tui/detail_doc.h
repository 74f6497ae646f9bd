/* detail_doc.h - what the drill-down says about one node, as a doc:
 * diagnosis first (each finding, then how to fix it), then chrony tracking,
 * sources and sourcestats, the PTP data sets and ports, NIC timestamping,
 * the running daemons, the node's error, its connection log (when the
 * model keeps one), and history plots; for a node read from Prometheus
 * that was polled once over SSH (ssh_detail.h), that poll's report last,
 * beside Prometheus's values, each section saying which source it is.
 *
 * Pure: the model in, styled lines out.  Everything that came from the
 * node is cleaned with tw_clean() on the way in. */
#ifndef SYNCTOP_DETAIL_DOC_H
#define SYNCTOP_DETAIL_DOC_H

#include <stdbool.h>

#include "doc.h"
#include "event_log.h"
#include "node.h"

/* Appends the report to d, laid out for `width` columns.  now is the
 * client's wall clock (for ages and the plots' time axis). */
void detail_doc_build(doc *d, const node *nd, double now, int width, bool utf8);

/* The same with the node's own events (node_index's in log, newest first,
 * the last DETAIL_DOC_EVENTS) after the diagnosis; log may be NULL. */
#define DETAIL_DOC_EVENTS 20
void detail_doc_build_events(doc *d, const node *nd, const event_log *log, size_t node_index, double now,
			     int width, bool utf8);

#endif
