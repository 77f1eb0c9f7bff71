/** The numbers a stage's alarms compare against; a stage overrides any of them (bin/stages.ts `alarmThresholds`). */
export interface AlarmThresholds {
  /** Share of the API's answers that are 5xx, in percent, over 5 minutes. Default: 1. */
  serverErrorRatePercent: number;
  /**
   * Requests in 5 minutes below which neither the 5xx rate nor the p99 latency is judged: 1 failure in 2 calls at
   * night is 50 %, and the p99 of 3 calls is their slowest cold start. Default: 50.
   */
  minRequests: number;
  /** The API's p99 latency (what the caller waits), in ms, over 5 minutes. Default: 1000. */
  p99LatencyMs: number;
  /** Failed invocations plus 5xx answers of one route function in 5 minutes. Default: 5. */
  routeErrors: number;
  /** Requests the WAF blocked in 5 minutes (rate rules refusing a client): above this, someone is hammering the API. Default: 300. */
  wafBlockedRequests: number;
  /** Aurora CPU, average, in percent, sustained 15 minutes. Default: 80. */
  databaseCpuPercent: number;
  /** Aurora Serverless v2 capacity used, in percent of the maximum ACU, sustained 15 minutes. Default: 90. */
  databaseCapacityPercent: number;
  /** RDS Proxy's availability of the writer (its health checks that succeeded), in percent, 3 of 5 minutes below it. Default: 90. */
  proxyAvailabilityPercent: number;
  /** OpenSearch free storage of the fullest node, in percent of its volume (AWS recommends 25 %). Default: 25. */
  searchFreeStoragePercent: number;
  /** OpenSearch JVM memory pressure, in percent, 3 minutes in a row (AWS recommends 95 %). Default: 95. */
  searchJvmPressurePercent: number;
  /** OpenSearch CPU, maximum, in percent, over 3 periods of 15 minutes (AWS recommends 80 %). Default: 80. */
  searchCpuPercent: number;
}

export const DEFAULT_ALARM_THRESHOLDS: Readonly<AlarmThresholds> = {
  serverErrorRatePercent: 1,
  minRequests: 50,
  p99LatencyMs: 1000,
  routeErrors: 5,
  wafBlockedRequests: 300,
  databaseCpuPercent: 80,
  databaseCapacityPercent: 90,
  proxyAvailabilityPercent: 90,
  searchFreeStoragePercent: 25,
  searchJvmPressurePercent: 95,
  searchCpuPercent: 80,
};
