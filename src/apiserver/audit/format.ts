/**
 * The `legacy` audit log format: one line of text per event (k8s.io/apiserver pkg/audit/format.go
 * `EventString`, v1.33), e.g.
 *
 * `2024-01-01T00:00:00.123456Z AUDIT: id="…" stage="RequestReceived" ip="127.0.0.1" method="get"
 * user="admin" groups="\"system:masters\",\"system:authenticated\"" as="<self>" asgroups="<lookup>"
 * user-agent="kubectl/v1.33.0" namespace="default" uri="/api/v1/namespaces/default/pods" response="<deferred>"`
 */
import { goQuote } from '../../machinery/errors/index.js';
import { rfc3339Nano } from './request.js';
import type { AuditEvent } from './types.js';

/** format.go `auditStringSlice`: each element quoted, joined by commas. */
function auditStringSlice(list: readonly string[]): string {
  return list.map(goQuote).join(',');
}

/** Go's zero time.Time in RFC3339Nano, for an event without a received timestamp. */
const ZERO_TIME = '0001-01-01T00:00:00Z';

/** format.go `EventString`: the one-line text form of an event (without the newline). */
export function eventString(ev: Partial<AuditEvent>): string {
  let username = '<none>';
  let groups = '<none>';
  if (ev.user?.username) {
    username = ev.user.username;
    if ((ev.user.groups ?? []).length > 0) groups = auditStringSlice(ev.user.groups ?? []);
  }
  let asuser = '<self>';
  let asgroups = '<lookup>';
  if (ev.impersonatedUser) {
    asuser = ev.impersonatedUser.username ?? '';
    if (ev.impersonatedUser.groups) asgroups = auditStringSlice(ev.impersonatedUser.groups);
  }
  const namespace = ev.objectRef?.namespace ? ev.objectRef.namespace : '<none>';
  const response = ev.responseStatus ? String(ev.responseStatus.code ?? 0) : '<deferred>';
  const ip = ev.sourceIPs?.[0] ?? '<unknown>';
  const time = ev.requestReceivedTimestamp ? rfc3339Nano(ev.requestReceivedTimestamp) : ZERO_TIME;
  const q = goQuote;
  return (
    `${time} AUDIT: id=${q(ev.auditID ?? '')} stage=${q(ev.stage ?? '')} ip=${q(ip)} method=${q(ev.verb ?? '')} ` +
    `user=${q(username)} groups=${q(groups)} as=${q(asuser)} asgroups=${q(asgroups)} user-agent=${q(ev.userAgent ?? '')} ` +
    `namespace=${q(namespace)} uri=${q(ev.requestURI ?? '')} response="${response}"`
  );
}
