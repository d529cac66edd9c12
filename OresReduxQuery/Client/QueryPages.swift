import OresRedux

/// A list fetched page after page (``QueryPagedEndpoint``), as its cache entry keeps it: the pages
/// in order, and the endpoint of the page that comes next, if any.
///
/// Read it as one list (`pages.flatMap(\.posts)`); an optimistic change of a paged entry changes
/// its pages (``QueryPagedEndpoint/patch(_:)``).
public struct QueryPages<Endpoint: QueryPagedEndpoint>: Equatable, Sendable {
    /// The pages fetched, from the first.
    public var pages: [Endpoint.Response]
    /// The endpoint of the next page, or `nil` when the last page is here.
    public var nextPage: Endpoint?

    /// Pages, and the endpoint of the one after them.
    public init(pages: [Endpoint.Response], nextPage: Endpoint?) {
        self.pages = pages
        self.nextPage = nextPage
    }

    /// Whether the server has a page after these.
    public var hasNextPage: Bool { nextPage != nil }

    /// These pages followed by `page`, whose endpoint says what comes after it.
    func appending(_ page: Endpoint.Response, after endpoint: Endpoint) -> QueryPages {
        QueryPages(pages: pages + [page], nextPage: endpoint.nextPage(after: page))
    }
}
