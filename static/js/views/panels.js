// The views of a stream, in page order within each slot. Every view keeps one contract
// (views/streams.js): adding a panel is a module with that contract and one line here.

import { Choices } from "./choices.js";
import { StreamErrors } from "./errors.js";
import { ExtrasPanel } from "./extras.js";
import { EventLog } from "./log.js";
import { MetricsPanel } from "./metrics.js";
import { ModelName } from "./model.js";
import { UsagePanel } from "./usage.js";

export const PANELS = Object.freeze([ModelName, Choices, StreamErrors, UsagePanel, MetricsPanel, EventLog, ExtrasPanel]);
