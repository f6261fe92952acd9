/**
 * Very frequent Han characters in Chinese (simplified and traditional forms) and Japanese.
 * GBK reads EUC-KR Hangul rows as GB2312 level-1 characters, so "is in level 1" cannot tell a
 * Korean file from a Chinese one; real Chinese or Japanese text is mostly made of these, a
 * misread mostly of the other few thousand.
 */
const SIMPLIFIED =
  '的一是不了人我在有他这为之大来以个中上们到说国和地也子时道出而要于就下得可你年生自会那后能对着事其里所去行过家十用发天如然作方成者多日都三小军二无同么经法当起与好看学进种将还分此心前面又定见只主没公从知现实高长回本文理由开意相已把西化新动给应明问力体原别头外走该样提政机正通重全什变她性二关点做部门决结物情两加位比手入表东合平各开果解员数便少工至期问题想等最把因被公司已经通过使以及进行发展工作社会问题没有可以这个我们他们时候所以因为但是如果已经还是一个什么自己现在知道没有这样那么怎么需要代码函数变量类型返回错误信息用户程序运行安装版本配置服务器网络请求内容页面功能模块使用方法结果输出输入路径目录日志时间状态记录图表示例注意事项简单复杂支持默认选择选项参数命令执行检查更新创建打开关闭保存加载分析学习模型训练预测特征样本算法计算矩阵向量线性回归分类聚类神经网络梯度下降损失优化正则化概率分布统计均值方差标准练习笔记课程们來個國說時對會後過發還現實這長開問題經動樣點關機話點麼當從頭種與兩實際應該體東業產電萬們學習ファ変更読書込行列値関数処理場合記事項目検索画面表示入力出力日本語私彼女時間今日明日年月週人気会社仕事電話番号住所様子気持自分世界上下左右前後内外大小高低新古多少長短早遅強弱';
export const COMMON_HAN = new Set(Array.from(SIMPLIFIED, (ch) => ch.codePointAt(0)!));
