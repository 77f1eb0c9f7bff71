/** The CloudWatch namespace of every metric the functions emit (routes and jobs); alarms and dashboards read it from here. */
export const METRICS_NAMESPACE = 'asof';

/** Powertools adds the service name (`asof`, given to every Metrics instance) as a dimension of every metric. */
export const SERVICE_DIMENSION = { service: 'asof' } as const;

/** What every route and page function counts per answer (dimension `route`: the route id, or `page-<id>`). */
export const ANSWER_METRIC = { success: 'Success', clientError: 'ClientError', serverError: 'ServerError' } as const;
