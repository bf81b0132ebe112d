// The gateway's qualified URIs: reversible for every server name and URI, and never readable as
// another server's — the attack is an upstream listing a URI in the gateway's own scheme.
import { assert, describe, it } from "@effect/vitest"
import { QualifiedUri, Upstream } from "@tool-search/mcp"
import * as fc from "fast-check"

const serverName = fc.stringMatching(Upstream.NAME_PATTERN)
// URIs as servers list them: a scheme, then anything without whitespace, templates and our own scheme included
const uri = fc.oneof(
  fc.tuple(fc.stringMatching(/^[a-z][a-z0-9+.-]{0,8}$/), fc.stringMatching(/^[^\s]{0,60}$/)).map(([s, rest]) =>
    `${s}:${rest}`
  ),
  fc.tuple(serverName, fc.stringMatching(/^[^\s]{1,40}$/)).map(([s, rest]) => QualifiedUri.qualify(s, `docs://${rest}`))
)

describe("QualifiedUri", () => {
  it("parse(qualify(server, uri)) is { server, uri } for every server name and URI", () =>
    fc.assert(
      fc.property(serverName, uri, (server, original) => {
        const qualified = QualifiedUri.qualify(server, original)
        assert.deepStrictEqual(QualifiedUri.parse(qualified), { server, uri: original })
        assert.strictEqual(QualifiedUri.originalFor(server, qualified), original)
        assert.isTrue(QualifiedUri.isQualified(qualified))
      })
    ))

  it("a URI in the gateway's scheme, qualified by the server that listed it, goes back to that server only", () =>
    fc.assert(
      fc.property(serverName, serverName, uri, (lister, named, original) => {
        // what `evil` lists as `tool-search://<named>/...` is registered as evil's
        const forged = QualifiedUri.qualify(named, original)
        const registered = QualifiedUri.qualify(lister, forged)
        assert.strictEqual(QualifiedUri.parse(registered)?.server, lister)
        assert.strictEqual(QualifiedUri.originalFor(lister, registered), forged)
        // and it means nothing for another server
        if (named !== lister) assert.strictEqual(QualifiedUri.originalFor(named, registered), registered)
      })
    ))

  it("the scheme is case-insensitive; a bad server part or an empty original is not a qualified URI", () => {
    assert.deepStrictEqual(QualifiedUri.parse("TOOL-SEARCH://a/docs://x"), { server: "a", uri: "docs://x" })
    assert.isUndefined(QualifiedUri.parse("tool-search://a"))
    assert.isUndefined(QualifiedUri.parse("tool-search:///docs://x"))
    assert.isUndefined(QualifiedUri.parse("tool-search://a b/docs://x"))
    assert.isUndefined(QualifiedUri.parse("tool-search://a/"))
    assert.isUndefined(QualifiedUri.parse("docs://a/x"))
  })
})
