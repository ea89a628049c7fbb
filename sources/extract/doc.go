// Package extract turns HTML into what feedpoller stores: the main content
// of a page as faithful Markdown, the page's metadata, and statistics about
// both (word count, reading time, token counts, compression, quality).
//
// The entry points are Extract (a whole page), ParseMetadata (metadata only)
// and FragmentToMarkdown (an HTML fragment such as an RSS content:encoded
// body). Command is the body of the `feedpoller extract` subcommand.
package extract
