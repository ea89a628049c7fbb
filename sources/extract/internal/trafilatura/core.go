// This file is part of go-trafilatura, Go package for extracting readable
// content, comments and metadata from a web page. Source available in
// <https://github.com/markusmobius/go-trafilatura>.
//
// Copyright (C) 2021 Markus Mobius
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
// http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.
//
// Modified for feedpoller: metadata, date and language detection, logging
// and the built-in fallback extractors are removed; the caller passes its
// own fallback candidates.

// Package trafilatura is a trimmed copy of the content extractor of
// github.com/markusmobius/go-trafilatura v1.12.2 (Apache-2.0, see LICENSE).
// The upstream package pulls in a date parser whose package initialisation
// costs ~0.4 s of CPU in every process; feedpoller does its own metadata
// and only needs the main-content extraction, which is kept here as it is.
package trafilatura

import (
	"errors"
	"unicode/utf8"

	"github.com/feedpoller/feedpoller/sources/extract/internal/trafilatura/lru"
	"github.com/feedpoller/feedpoller/sources/extract/internal/trafilatura/selector"
	"github.com/go-shiori/dom"
	"golang.org/x/net/html"
)

// ExtractResult is the result of content extraction.
type ExtractResult struct {
	// ContentNode is the extracted content as a `html.Node`.
	ContentNode *html.Node

	// ContentText is the extracted content as a plain text.
	ContentText string

	// Method names where the content came from: "trafilatura",
	// "fallback" (a caller's candidate) or "baseline".
	Method string
}

// ExtractDocument finds the main readable content of doc, which it does
// not modify.
func ExtractDocument(doc *html.Node, opts Options) (*ExtractResult, error) {
	if opts.Config == nil {
		opts.Config = DefaultConfig()
	}
	opts.ExcludeComments = true
	cache := lru.NewCache(opts.Config.CacheSize)

	original := doc
	doc = dom.Clone(doc, true)

	docCleaning(doc, opts)
	convertTags(doc, opts)

	if opts.Focus == FavorPrecision {
		doc = pruneUnwantedNodes(doc, selector.RemovedComments)
	}

	postBody, tmpBodyText := extractContent(doc, cache, opts)
	method := "trafilatura"

	if opts.FallbackCandidates != nil {
		var used bool
		postBody, tmpBodyText, used = compareExternalExtraction(postBody, opts)
		if used {
			method = "fallback"
		}
	}

	lenText := utf8.RuneCountInString(tmpBodyText)
	if lenText < opts.Config.MinExtractedSize && opts.Focus != FavorPrecision {
		// The caller's document is untouched: clone it only when needed.
		postBody, tmpBodyText = baseline(dom.Clone(original, true))
		method = "baseline"
	}

	lenText = utf8.RuneCountInString(tmpBodyText)
	if lenText < opts.Config.MinOutputSize {
		return nil, errors.New("no main content found")
	}

	postCleaning(postBody)
	return &ExtractResult{ContentNode: postBody, ContentText: tmpBodyText, Method: method}, nil
}
