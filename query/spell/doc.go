// Package spell corrects misspelt words: the index's dictionary of words
// (format.BucketDictionary) with their reach, a delete index for the close
// words of a word, and the "did you mean" searches of a search without
// result (Suggest, which the search calls through core.Suggester). The
// dictionary is loaded on first use and kept in the index's derived
// values.
//
// File map:
//   - dictionary.go: the dictionary, its trie and the close words of a word
//   - deletes.go: the delete index and the bit-parallel edit distance
//   - doc.go: this comment
//   - suggest.go: Suggest, the word options and their combinations
package spell
