/** A DNS name as email domains are written: lower-case labels, a dot-separated TLD of letters. */
export const DOMAIN_NAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
