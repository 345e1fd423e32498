/**
 * A page handler: the title and the headings of every page, as one item per page.
 *
 *   shardline crawl --handler examples/extract-headings.mjs https://example.org/
 *
 * `page.$` is a cheerio document (built on first use); `ctx.push` appends an item, stamped by
 * the pod with the page's URL, the pod id and the time, to the items stream (and --items-jsonl).
 */
export default async function extractHeadings(page, ctx) {
  const $ = page.$;
  const headings = $('h1, h2, h3')
    .map((_, element) => ({ level: element.tagName, text: $(element).text().trim() }))
    .get();
  ctx.push({ title: $('title').first().text().trim(), headings });
}
