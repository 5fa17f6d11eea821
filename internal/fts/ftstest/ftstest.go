// Package ftstest holds texts for the tests of pidex's search on every
// backend: FTS5's tokens, PostgreSQL's rows, bm25.
package ftstest

import (
	"math/rand/v2"
	"strings"
)

// TokenTexts are texts that exercise the tokenizer: the search tests'
// texts (folding, identifiers, CJK), scripts, marks, numbers, emoji,
// quotes and the kana that unicode61 does not fold.
var TokenTexts = []string{
	"The Café au lait bug: parse_header fails with ERR_MODULE_NOT_FOUND in session-manager.ts",
	"I will run the migration again and then check the quick brown fox.",
	"thinking about zebra stripes",
	"package query // lives in src/query/path.go",
	"go test ./indexer FAIL indexer_gopher 0.3s",
	"Summary: we fixed the lighthouse keeper issue.",
	"checkpoint-walrus",
	"Penguin refactor",
	"全文検索エンジンのインデックスを再構築しました。",
	"数据库压缩完成，测试通过。 한국어검색테스트",
	"cafeteria menu, a quick fox, nothing else; header parse",
	"ＦＵＬＬ width Ｌａｔｉｎ and ½ ² ⅻ numbers, ǅ ß ẞ İ ﬁ ligatures, Ελληνικά ΣΊΣΥΦΟΣ, русский ТЕКСТ",
	"emoji 🙂 between words😀and private \ue000use\ue001 chars, n\u0303o combining, 👍🏽 modifiers",
	"a'quote and back\\slash and 'quoted' and \"double\" it's",
	"ｶﾀｶﾅ half-width and ー長音 and 々 and 〆 and ・middle・dot",
	"lone marks \u0301 and \u0301\u0308 between words, テスト and デスト",
}

// RandomText mixes scripts, marks, digits, punctuation and CJK runs.
func RandomText(r *rand.Rand) string {
	pools := []string{
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
		"àáâãäåçèéêëìíîïñòóôõöùúûüýÿÀÁÂÃÄÅÇÈÉÊËÌÍÎÏÑÒÓÔÕÖÙÚÛÜÝŸœŒæÆøØłŁđĐ",
		"αβγδεζηθικλμνξοπρστυφχψωςΑΒΓΔΣΩάέήίόύώ",
		"абвгдежзийклмнопрстуфхцчшщъыьэюяАБВГДЕЁЖЗ",
		"検索索引全文数据库压缩测试通过失败构建部署会話分支模型インデックスデータベーステスト한국어검색ー々〆",
		" ,.;:!?()[]{}<>/\\|_-+=*&^%$#@~`'\"\n\t、。「」・",
		"\u0301\u0308\u0303\u20ac\u00bd\u00b2\u2167\ue000\U0001F600\uff21\uff41\uff66\u0660\u0661",
	}
	var b strings.Builder
	for range 5 + r.IntN(40) {
		p := []rune(pools[r.IntN(len(pools))])
		for range 1 + r.IntN(6) {
			b.WriteRune(p[r.IntN(len(p))])
		}
		if r.IntN(3) == 0 {
			b.WriteByte(' ')
		}
	}
	return b.String()
}
