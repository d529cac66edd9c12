// Journals and saved states written by the build of this file's first commit (journal format
// 1), recorded by `JournalFixtureTests.recordFixtures`. Never edit: they are what an old
// build left on disk.

extension JournalFixturesV1 {
    static let midway = JournalFixture(
        files: [
            "run-f53151123ade5ac098c938a7dcded8e6.journal":
                "T3Jlc1JKbmwAAAABAAAAB4xU0vJvcmRlci0xTeGIbAAAARfeCcdz504ejwEAAAAHb3JkZXItMQAAAAVv"
                + "cmRlcgAAAAx7Iml0ZW0iOiJ4In0AAADec2hhMjU2Ojc3ZmI5YzQ3MDU5NzAzZTAzYzFhYjIxZGViOTVh"
                + "ZmMwMjljODliNDI2OTJiZTc4MjYxMjNiNzQxY2U5M2Q1ODAKdjF8NTpmZXRjaDphc3luYzo6dHJ1ZXw0"
                + "OnNob3c6c3luYzowOmZhbHNlfDY6Y2hhcmdlOmFzeW5jOjA6dHJ1ZXw3OmNvbmZpcm06c3luYzoyOmZh"
                + "bHNlfDQ6c3luYzphc3luYzowOnRydWV8NjpzeW5jZWQ6c3luYzo0OmZhbHNlfDY6YnJva2VuOmFzeW5j"
                + "Ojp0cnVlAAAAAAAAAAGCp6dfW7uwiwAAADqj4iE1wRKeEQIAAAAFZmV0Y2gAAAAAAAAAAQAAACRpazEt"
                + "OGMxNmIyMGUxNzA2ZDMxOTc2MjNiOGJhMTBkZmY2MmMAAAA7OUG/vEEw/LoCAAAABmJyb2tlbgAAAAAA"
                + "AAABAAAAJGlrMS1iNTFjZjNmOWYwODNkZTJjZTAzYmViZmZlOGQ3NGI1NwAAAB8+3IAVJlg76wMAAAAF"
                + "ZmV0Y2gAAAAAAAAAAQEAAAAIIml0ZW0tNyIAAAA3jTk47M2IxQwDAAAABmJyb2tlbgAAAAAAAAABAgAA"
                + "AB9vZmZsaW5lICh0aGUgZml4dHVyZSdzIGZhaWx1cmUpAAAAEX7YZqtK3elMBAAAAARzaG93AAAAAAAA"
                + "AAEAAAA7XfZWIfDJJ2UCAAAABmNoYXJnZQAAAAAAAAABAAAAJGlrMS04YjY1MjNlYmQ4OWIyNTk0MmQ1"
                + "YzEzNjZkMjY0MWVhNwAAADlLZCv+64UwrQIAAAAEc3luYwAAAAAAAAABAAAAJGlrMS1kMjkyODVmMGRm"
                + "MmIzZWVjMDEwZWRlY2M5NWY2ZTI0Yg=="
        ],
        state:
            "eyJkdXJhYmxlTWFya3MiOnsiYXBwbGllZCI6W3siaW5zdGFuY2UiOjk0MTQ2Nzc1NzQwNDQwNzAwMjcs"
            + "ImlzRmFsbGJhY2siOnRydWUsIm5vZGUiOiJicm9rZW4iLCJydW5JRCI6Im9yZGVyLTEifSx7Imluc3Rh"
            + "bmNlIjo5NDE0Njc3NTc0MDQ0MDcwMDI3LCJpc0ZhbGxiYWNrIjpmYWxzZSwibm9kZSI6InNob3ciLCJy"
            + "dW5JRCI6Im9yZGVyLTEifV19LCJzdGF0ZSI6eyJicm9rZW5GYWlsdXJlcyI6MSwiY2hhcmdlRmFpbHVy"
            + "ZXMiOltdLCJjaGFyZ2VkIjowLCJmaW5pc2hlZCI6MCwic2hvd24iOlsiaXRlbS03Il0sInN0YXJ0ZWQi"
            + "OjAsInN5bmNlZCI6MH19")

    static let settled = JournalFixture(
        files: [
            "run-f53151123ade5ac098c938a7dcded8e6.journal":
                "T3Jlc1JKbmwAAAABAAAAB4xU0vJvcmRlci0xTeGIbAAAARfeCcdz504ejwEAAAAHb3JkZXItMQAAAAVv"
                + "cmRlcgAAAAx7Iml0ZW0iOiJ4In0AAADec2hhMjU2Ojc3ZmI5YzQ3MDU5NzAzZTAzYzFhYjIxZGViOTVh"
                + "ZmMwMjljODliNDI2OTJiZTc4MjYxMjNiNzQxY2U5M2Q1ODAKdjF8NTpmZXRjaDphc3luYzo6dHJ1ZXw0"
                + "OnNob3c6c3luYzowOmZhbHNlfDY6Y2hhcmdlOmFzeW5jOjA6dHJ1ZXw3OmNvbmZpcm06c3luYzoyOmZh"
                + "bHNlfDQ6c3luYzphc3luYzowOnRydWV8NjpzeW5jZWQ6c3luYzo0OmZhbHNlfDY6YnJva2VuOmFzeW5j"
                + "Ojp0cnVlAAAAAAAAAAGCp6dfW7uwiwAAADqj4iE1wRKeEQIAAAAFZmV0Y2gAAAAAAAAAAQAAACRpazEt"
                + "OGMxNmIyMGUxNzA2ZDMxOTc2MjNiOGJhMTBkZmY2MmMAAAA7OUG/vEEw/LoCAAAABmJyb2tlbgAAAAAA"
                + "AAABAAAAJGlrMS1iNTFjZjNmOWYwODNkZTJjZTAzYmViZmZlOGQ3NGI1NwAAAB8+3IAVJlg76wMAAAAF"
                + "ZmV0Y2gAAAAAAAAAAQEAAAAIIml0ZW0tNyIAAAA3jTk47M2IxQwDAAAABmJyb2tlbgAAAAAAAAABAgAA"
                + "AB9vZmZsaW5lICh0aGUgZml4dHVyZSdzIGZhaWx1cmUpAAAAEX7YZqtK3elMBAAAAARzaG93AAAAAAAA"
                + "AAEAAAA7XfZWIfDJJ2UCAAAABmNoYXJnZQAAAAAAAAABAAAAJGlrMS04YjY1MjNlYmQ4OWIyNTk0MmQ1"
                + "YzEzNjZkMjY0MWVhNwAAADlLZCv+64UwrQIAAAAEc3luYwAAAAAAAAABAAAAJGlrMS1kMjkyODVmMGRm"
                + "MmIzZWVjMDEwZWRlY2M5NWY2ZTI0YgAAALmyzz/7lcPpYQMAAAAGY2hhcmdlAAAAAAAAAAECAAAAoXRo"
                + "ZSBkdXJhYmxlIG5vZGUgImNoYXJnZSIgd2FzIGluIGZsaWdodCB3aGVuIHRoZSBhcHAgc3RvcHBlZCwg"
                + "YW5kIG1heSBvciBtYXkgbm90IGhhdmUgaGFwcGVuZWQgKGtleSBpazEtOGI2NTIzZWJkODliMjU5NDJk"
                + "NWMxMzY2ZDI2NDFlYTcpOyBpdCBpcyBub3QgY2FsbGVkIGFnYWluAAAAOYSycx9cC956AgAAAARzeW5j"
                + "AAAAAAAAAAIAAAAkaWsxLWQyOTI4NWYwZGYyYjNlZWMwMTBlZGVjYzk1ZjZlMjRiAAAAFwvWDemJ9QIA"
                + "AwAAAARzeW5jAAAAAAAAAAIBAAAAATEAAAATN0jUMSRfpt8EAAAABnN5bmNlZAAAAAAAAAAC"
        ],
        state:
            "eyJkdXJhYmxlTWFya3MiOnsiYXBwbGllZCI6W3siaW5zdGFuY2UiOjk0MTQ2Nzc1NzQwNDQwNzAwMjcs"
            + "ImlzRmFsbGJhY2siOnRydWUsIm5vZGUiOiJicm9rZW4iLCJydW5JRCI6Im9yZGVyLTEifSx7Imluc3Rh"
            + "bmNlIjo5NDE0Njc3NTc0MDQ0MDcwMDI3LCJpc0ZhbGxiYWNrIjpmYWxzZSwibm9kZSI6InNob3ciLCJy"
            + "dW5JRCI6Im9yZGVyLTEifV19LCJzdGF0ZSI6eyJicm9rZW5GYWlsdXJlcyI6MSwiY2hhcmdlRmFpbHVy"
            + "ZXMiOltdLCJjaGFyZ2VkIjowLCJmaW5pc2hlZCI6MCwic2hvd24iOlsiaXRlbS03Il0sInN0YXJ0ZWQi"
            + "OjAsInN5bmNlZCI6MH19")

    static let cancelled = JournalFixture(
        files: [
            "run-40f4a71b8272d345d4acdd19ac5a01b7.journal":
                "T3Jlc1JKbmwAAAABAAAABn4/UfFzbG93LTHtOkEdAAAAw+x6AuI6Xu9GAQAAAAZzbG93LTEAAAAEc2xv"
                + "dwAAAAx7Iml0ZW0iOiJ4In0AAACMc2hhMjU2OmZlZmRjZTk1MzUxM2MwMjlkMDIwNWQ5NjE3MTM3MmI0"
                + "Y2M4MjRkMWMxNjk2NjJhZmVmZjAxMjc3NjJiMGI4ZmUKdjF8NzpzdGFydGVkOnN5bmM6OmZhbHNlfDQ6"
                + "d2FpdDphc3luYzowOnRydWV8ODpmaW5pc2hlZDpzeW5jOjE6ZmFsc2UAAAAAAAAAASebXkNF8s0iAAAA"
                + "FMBCo5WFtXCMBAAAAAdzdGFydGVkAAAAAAAAAAEAAAA5+OTfUot5l4oCAAAABHdhaXQAAAAAAAAAAQAA"
                + "ACRpazEtNTAzN2ZkZWY1YWUyOTE4ZDQ3ZWFkMzQ3YjBlZGViYTAAAAABdNy0uf8zJugGAAAAKX70J5L4"
                + "H5ucAwAAAAR3YWl0AAAAAAAAAAECAAAAE0NhbmNlbGxhdGlvbkVycm9yKCk="
        ],
        state:
            "")

}
