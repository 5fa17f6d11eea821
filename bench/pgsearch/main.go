// Command pgsearch measures how PostgreSQL can answer pidex's search
// language (docs/postgres.md, "Search"). Written below.
package main

func main() {}
