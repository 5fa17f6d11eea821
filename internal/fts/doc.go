// Package fts is pidex's full-text search language and its text
// preparation, shared by the writer (what goes into the FTS5 index) and
// the reader (what a query becomes, and how a hit's snippet is cut and
// highlighted).
//
// The index is SQLite FTS5 with the unicode61 tokenizer (case folding,
// diacritics removed), which splits Latin text and code at every
// non-alphanumeric character and keeps a whole run of Chinese, Japanese or
// Korean characters as one token. So before FTS5 sees any text, runs of
// CJK characters are rewritten into overlapping bigrams ("全文検索" →
// "全文 文検 検索 索"), at index time (Prepare) and query time (a CJK word
// becomes the phrase of its bigrams): any CJK word of two or more
// characters is found inside running text without spaces.
//
// Users type a small language — words, "quoted phrases", prefix*, OR,
// -exclusion, parentheses — parsed into a tree (Parse) and only then
// written as an FTS5 expression (Node.Match) in which every user word is
// a quoted FTS5 string: no user input reaches MATCH unparsed.
package fts
