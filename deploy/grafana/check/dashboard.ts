// Type-checks ../stationdex.json against Grafana's own dashboard schema
// (@grafana/schema, the types generated from the schema Grafana validates
// dashboards with). Grafana cannot be installed here, so this is the check
// that a panel, target, field config or variable has the shape Grafana
// expects: `npm ci && npm run check`.
import type { Dashboard } from "@grafana/schema";
import dashboard from "../stationdex.json";

// A JSON import types every string as `string` and every number as
// `number`, never as a literal, so it can never match a schema field typed
// as an enum or a union of literals (thresholds.mode, a variable's type).
// Widen relaxes exactly those fields to their base type and keeps the rest
// of the schema: property types, required properties, nesting, arrays.
type Widen<T> = T extends string
  ? string
  : T extends number
    ? number
    : T extends boolean
      ? boolean
      : T extends ReadonlyArray<infer U>
        ? Array<Widen<U>>
        : T extends object
          ? { [K in keyof T]: Widen<T[K]> }
          : T;

export const checked: Widen<Dashboard> = dashboard;
