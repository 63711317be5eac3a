/**
 * The offline corpus: a few made-up pages (so no answer can come from a model's own memory),
 * each served as HTML at `/pages/<slug>` and found by `/search`.
 */
export interface CorpusPage {
  slug: string;
  title: string;
  /** Paragraphs of the page body (plain text). */
  paragraphs: string[];
}

export const CORPUS: readonly CorpusPage[] = [
  {
    slug: 'atlantis-capital',
    title: 'Poseidonia, capital of Atlantis',
    paragraphs: [
      'Poseidonia is the capital of Atlantis, a fictional island nation used in this corpus.',
      'The city was founded in the year 1204 of the Atlantean calendar and has about 42,000 inhabitants.',
      'Its harbour, the Ring Port, is famous for its concentric canals.',
    ],
  },
  {
    slug: 'atlantis-history',
    title: 'A short history of Atlantis',
    paragraphs: [
      'Atlantis was united under Queen Maren the Tidal in 1190, fourteen years before Poseidonia became its capital.',
      'The island sank twice in legend and rose again each time, according to the chronicles of the Ring Port.',
    ],
  },
  {
    slug: 'zephyr-language',
    title: 'The Zephyr programming language',
    paragraphs: [
      'Zephyr is a fictional programming language designed by the Halcyon Group in 2031.',
      'It compiles to WebAssembly and is known for its wind-themed keywords: gust, breeze and calm.',
      'Zephyr 2.0 added structured concurrency through the squall block.',
    ],
  },
  {
    slug: 'zephyr-release',
    title: 'Zephyr 2.0 release notes',
    paragraphs: [
      'Zephyr 2.0 was released on 3 March 2033 with the squall block for structured concurrency.',
      'The release also removed the deprecated drizzle keyword.',
    ],
  },
  {
    slug: 'glimmerfruit',
    title: 'Glimmerfruit: nutrition and origin',
    paragraphs: [
      'Glimmerfruit is a fictional fruit that glows faintly blue when ripe.',
      'It grows on the slopes of Mount Verdance and contains 48 calories per 100 grams.',
    ],
  },
  {
    slug: 'mount-verdance',
    title: 'Mount Verdance',
    paragraphs: [
      'Mount Verdance is a fictional volcano, 3,210 metres high, whose slopes are covered in glimmerfruit orchards.',
      'The last eruption was recorded in 1987.',
    ],
  },
  {
    slug: 'quorlax-bridge',
    title: 'The Quorlax Bridge',
    paragraphs: [
      'The Quorlax Bridge is a fictional suspension bridge of 2.4 kilometres over the Amberflow river.',
      'It opened in 1999 and carries six lanes of traffic and a tram line.',
    ],
  },
  {
    slug: 'amberflow-river',
    title: 'The Amberflow river',
    paragraphs: [
      'The Amberflow is a fictional river, 812 kilometres long, named after the colour of its sediment.',
      'The Quorlax Bridge crosses it near its mouth.',
    ],
  },
  {
    slug: 'weather-gateway',
    title: 'Weather in Gateway City today',
    paragraphs: [
      'Gateway City expects light rain and 14 degrees Celsius today, with wind from the west.',
      'Tomorrow will be sunny with 18 degrees.',
    ],
  },
  {
    slug: 'inference-gateways',
    title: 'What an LLM inference gateway does',
    paragraphs: [
      'An LLM inference gateway routes requests to model providers, meters usage and enforces spend limits.',
      'Server tools such as web search let the gateway run tools for a model and call it again with the results.',
    ],
  },
];

/** The page as readable text (what web_fetch should recover from its HTML). */
export function pageText(page: CorpusPage): string {
  return [page.title, ...page.paragraphs].join('\n');
}
