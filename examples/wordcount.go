// Package wordcount is used by `make demo` (typing is replayed into this file).
package wordcount

import (
	"sort"
	"strings"
)

// Count returns how often each word occurs in text, ignoring case.
func Count(text string) map[string]int {
	counts := make(map[string]int)
	for _, word := range strings.Fields(text) {
		word = strings.ToLower(strings.Trim(word, ".,;:!?\"'"))
		if word == "" {
			continue
		}
		counts[word]++
	}
	return counts
}

// Top returns the n most frequent words, most frequent first.
func Top(counts map[string]int, n int) []string {
	words := make([]string, 0, len(counts))
	for word := range counts {
		words = append(words, word)
	}
	sort.Slice(words, func(i, j int) bool {
		if counts[words[i]] != counts[words[j]] {
			return counts[words[i]] > counts[words[j]]
		}
		return words[i] < words[j]
	})
	if len(words) > n {
		words = words[:n]
	}
	return words
}
