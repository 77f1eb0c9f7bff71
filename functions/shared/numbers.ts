/** 65000 → `65,000`, without Intl: a first toLocaleString loads ICU's locale data, ~18 ms of a function's start. */
export const thousands = (n: number): string => String(n).replace(/\B(?=(\d{3})+$)/g, ',');
