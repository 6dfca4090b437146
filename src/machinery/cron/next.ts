/**
 * Activation times of a parsed schedule: robfig/cron v3.0.1 `SpecSchedule.Next` (spec.go) and
 * `ConstantDelaySchedule.Next` (constantdelay.go), the computation the CronJob controller
 * (pkg/controller/cronjob/utils.go) runs, with Go's `time` semantics in a time zone.
 *
 * Instants are milliseconds since the Unix epoch. Zone arithmetic uses the IANA data Node's `Intl`
 * carries (the offset at an instant, through `formatToParts`), and reproduces what robfig relies on
 * from Go: `time.Date` (normalising overflowing fields, and picking an offset for a wall time that a
 * daylight-saving change skips or repeats exactly as Go does: the offset at wall-as-UTC, then the
 * offset at the instant that gives), `AddDate` (a `time.Date` of the shifted wall fields), `Add`
 * and `Truncate` (absolute time). Consequences robfig users see, and so do we: a time a spring-forward
 * skips (02:30 in New York on 2025-03-09) has no activation that day, and a time a fall-back repeats
 * (01:30 on 2025-11-02) has two, an hour apart.
 */
import type { CronSchedule } from './index.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** `a mod b`, non-negative for negative `a` (instants before 1970). */
const mod = (a: number, b: number): number => ((a % b) + b) % b;

/** The wall-clock fields of an instant in a zone (month 1–12, weekday 0 = Sunday). */
export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  weekday: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** True for the names Go's `LoadLocation` maps to UTC. */
const isUTC = (zone: string): boolean => zone === '' || zone === 'UTC';

/**
 * The zone's offset from UTC at instant `t`, in ms (positive east of Greenwich), from ICU's tz data.
 * @throws RangeError for a zone ICU does not know (callers validate zones first).
 */
export function zoneOffset(zone: string, t: number): number {
  if (isUTC(zone)) return 0;
  let fmt = formatters.get(zone);
  if (!fmt) {
    fmt = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, fmt);
  }
  const f: Record<string, string> = {};
  for (const p of fmt.formatToParts(t)) f[p.type] = p.value;
  const wall = fromFields(Number(f.year), Number(f.month), Number(f.day), Number(f.hour), Number(f.minute), Number(f.second));
  return wall - (t - mod(t, SECOND));
}

/** The UTC instant of these fields, normalised as Go's `time.Date` does (unlike `Date.UTC`, years 0–99 are themselves). */
function fromFields(year: number, month: number, day: number, hour: number, minute: number, second: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, minute, second, 0);
  return d.getTime();
}

/** The wall-clock fields of `t` in `zone` (Go's `t.In(loc).Date()/Clock()/Weekday()`). */
export function wallTime(zone: string, t: number): WallTime {
  const d = new Date(t + zoneOffset(zone, t));
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    weekday: d.getUTCDay(),
  };
}

/**
 * Go's `time.Date(year, month, day, hour, min, sec, 0, loc)`: fields out of range are normalised
 * (month 13 is January of the next year, day 0 the last of the previous month); a wall time that
 * does not exist or exists twice gets Go's choice of offset (see the module documentation).
 */
export function goDate(zone: string, year: number, month: number, day: number, hour: number, minute: number, second: number): number {
  const wall = fromFields(year, month, day, hour, minute, second);
  if (isUTC(zone)) return wall;
  const guess = zoneOffset(zone, wall);
  return wall - zoneOffset(zone, wall - guess);
}

/**
 * Go's `t.Format(time.RFC3339)` in `zone`: `2025-03-09T03:00:00-04:00`, or `…Z` where the offset is
 * zero. Sub-second digits are dropped, as that layout does.
 */
export function formatRFC3339In(zone: string, t: number): string {
  const off = zoneOffset(zone, t);
  const w = wallTime(zone, t);
  const p2 = (n: number): string => String(n).padStart(2, '0');
  const date = `${String(w.year).padStart(4, '0')}-${p2(w.month)}-${p2(w.day)}T${p2(w.hour)}:${p2(w.minute)}:${p2(w.second)}`;
  if (off === 0) return `${date}Z`;
  const abs = Math.abs(off) / MINUTE;
  return `${date}${off < 0 ? '-' : '+'}${p2(Math.floor(abs / 60))}:${p2(abs % 60)}`;
}

/**
 * robfig `Schedule.Next`: the first activation strictly after `t` (ms), or undefined when a spec
 * schedule has none within five years (robfig's zero time; e.g. `0 0 30 2 *`).
 *
 * `localZone` is the zone of a schedule without `TZ=`/`CRON_TZ=` (robfig's `time.Local`: the
 * controller manager's zone; kube-controller-manager images run in UTC).
 */
export function nextActivation(schedule: CronSchedule, t: number, localZone = 'UTC'): number | undefined {
  if (schedule.kind === 'every') return t + schedule.everyMs - mod(t, SECOND);
  const loc = schedule.location === undefined || schedule.location === 'Local' ? localZone : schedule.location;
  const months = new Set(schedule.month.values);
  const doms = new Set(schedule.dom.values);
  const dows = new Set(schedule.dow.values);
  const hours = new Set(schedule.hour.values);
  const minutes = new Set(schedule.minute.values);
  // robfig dayMatches: both must match when either field is `*`, else either may.
  const dayMatches = (w: WallTime): boolean => (schedule.dom.star || schedule.dow.star ? doms.has(w.day) && dows.has(w.weekday) : doms.has(w.day) || dows.has(w.weekday));

  // Start at the earliest possible time: the next whole second.
  let cur = t + SECOND - mod(t, SECOND);
  let added = false;
  const yearLimit = wallTime(loc, cur).year + 5;

  wrap: for (;;) {
    let w = wallTime(loc, cur);
    if (w.year > yearLimit) return undefined;

    while (!months.has(w.month)) {
      if (!added) {
        added = true;
        cur = goDate(loc, w.year, w.month, 1, 0, 0, 0);
        w = wallTime(loc, cur);
      }
      cur = goDate(loc, w.year, w.month + 1, w.day, w.hour, w.minute, w.second);
      w = wallTime(loc, cur);
      if (w.month === 1) continue wrap;
    }

    while (!dayMatches(w)) {
      if (!added) {
        added = true;
        cur = goDate(loc, w.year, w.month, w.day, 0, 0, 0);
        w = wallTime(loc, cur);
      }
      cur = goDate(loc, w.year, w.month, w.day + 1, w.hour, w.minute, w.second);
      w = wallTime(loc, cur);
      // Where midnight does not exist (a DST change at 00:00), land back on the day's first hour.
      if (w.hour !== 0) {
        cur += w.hour > 12 ? (24 - w.hour) * HOUR : -w.hour * HOUR;
        w = wallTime(loc, cur);
      }
      if (w.day === 1) continue wrap;
    }

    while (!hours.has(w.hour)) {
      if (!added) {
        added = true;
        cur = goDate(loc, w.year, w.month, w.day, w.hour, 0, 0);
      }
      cur += HOUR;
      w = wallTime(loc, cur);
      if (w.hour === 0) continue wrap;
    }

    while (!minutes.has(w.minute)) {
      if (!added) {
        added = true;
        cur -= mod(cur, MINUTE);
      }
      cur += MINUTE;
      w = wallTime(loc, cur);
      if (w.minute === 0) continue wrap;
    }

    // ParseStandard fixes the seconds field at 0.
    while (w.second !== 0) {
      if (!added) {
        added = true;
        cur -= mod(cur, SECOND);
      }
      cur += SECOND;
      w = wallTime(loc, cur);
      if (w.second === 0) continue wrap;
    }
    return cur;
  }
}
