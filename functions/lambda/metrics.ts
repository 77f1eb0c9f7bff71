/** The CloudWatch namespace of every metric the functions emit (routes and jobs); alarms and dashboards read it from here. */
export const METRICS_NAMESPACE = 'asof';

/** Powertools adds the service name as a dimension of every metric (POWERTOOLS_SERVICE_NAME, set on every function). */
export const SERVICE_DIMENSION = { service: 'asof' } as const;
